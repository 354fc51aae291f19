/** The mailbox statements of schema `s`; parameters are named in each comment. */
export const mailboxStatements = (s: string) => {
  const columns = `message_id AS "messageId", session_id AS session, kind, body, admitted_by AS "admittedBy",
    (extract(epoch FROM created_at) * 1000)::float8 AS "createdAt", delivered_seq AS "deliveredSeq",
    (extract(epoch FROM done_at) * 1000)::float8 AS "doneAt", outcome, id::text AS position`
  return {
    /**
     * Admits a message once per (session, message id): the first post wins, a repeat changes
     * nothing (and is not notified). Parameters: session, message id, kind, body, admitted by.
     */
    post: `INSERT INTO "${s}".session_mailbox (session_id, message_id, kind, body, admitted_by) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (session_id, message_id) DO NOTHING RETURNING id::text AS position`,
    /**
     * Posts a done, undelivered message again (its owner answered it without admitting it): pending
     * once more, with the new body, after the mail posted before now (a new `id`), unclaimed (a
     * splice of the run that answered it does not mark the new post delivered) — only while it
     * is still the entry read at `position`, so one of two posts racing to reopen it wins.
     * Parameters: session, message id, body, admitted by, position.
     */
    reopen: `UPDATE "${s}".session_mailbox SET id = nextval(pg_get_serial_sequence('"${s}".session_mailbox', 'id')),
        body = $3, admitted_by = $4, created_at = clock_timestamp(), done_at = NULL, outcome = NULL, claimed_epoch = NULL
      WHERE session_id = $1 AND message_id = $2 AND id = $5::bigint AND done_at IS NOT NULL AND delivered_seq IS NULL
      RETURNING id::text AS position`,
    /** Whether `owner` holds the session's lease at `epoch`. Parameters: session, owner, epoch. */
    held: `SELECT 1 FROM "${s}".session_leases WHERE session_id = $1 AND owner = $2 AND epoch = $3::bigint`,
    /** Parameters: session, message id. */
    get: `SELECT ${columns} FROM "${s}".session_mailbox WHERE session_id = $1 AND message_id = $2`,
    /** Messages neither delivered nor done, in admission order. Parameters: session, limit. */
    pending: `SELECT ${columns} FROM "${s}".session_mailbox WHERE session_id = $1 AND delivered_seq IS NULL AND done_at IS NULL ORDER BY id LIMIT $2`,
    /** Sessions that have pending mail. Parameters: limit. */
    sessions: `SELECT DISTINCT session_id AS session FROM "${s}".session_mailbox WHERE delivered_seq IS NULL AND done_at IS NULL LIMIT $1`,
    /**
     * Claims a pending entry for its run by the session's lease holder at its current epoch, only
     * while it is the entry read at `position`: a splice of its id under that epoch marks it
     * delivered (schema.ts, `append`). Parameters: session, message id, position, owner, epoch.
     */
    claim: `UPDATE "${s}".session_mailbox m SET claimed_epoch = $5::bigint
      WHERE m.session_id = $1 AND m.message_id = $2 AND m.id = $3::bigint AND m.delivered_seq IS NULL AND m.done_at IS NULL
        AND EXISTS (SELECT 1 FROM "${s}".session_leases l WHERE l.session_id = $1 AND l.owner = $4 AND l.epoch = $5::bigint FOR SHARE)
      RETURNING 1`,
    /**
     * Marks a message done (a cancel or queue edit carried out, or a message refused) with its
     * outcome — only by the session's lease holder at its current epoch, and (with a position)
     * only while it is the entry read there, not a post that reopened it since. Parameters:
     * session, message id, outcome, owner, epoch, position or null.
     */
    complete: `UPDATE "${s}".session_mailbox m SET done_at = clock_timestamp(), outcome = $3
      WHERE m.session_id = $1 AND m.message_id = $2 AND m.done_at IS NULL AND ($6::bigint IS NULL OR m.id = $6::bigint)
        AND EXISTS (SELECT 1 FROM "${s}".session_leases l WHERE l.session_id = $1 AND l.owner = $4 AND l.epoch = $5::bigint FOR SHARE)
      RETURNING 1`,
  }
}
