/**
 * The lease statements. Times are the database's (`clock_timestamp()`), never a host's, so hosts
 * with drifting clocks agree on who holds a lease. Parameters are named in each comment.
 */
export const leaseStatements = (s: string) => ({
  /**
   * Takes a session's lease for `$2` for `$3` ms: a new row (epoch 1), or the row of a lease that
   * expired, was released, or is `$2`'s own — each takeover raises the epoch, which fences every
   * writer of the earlier epochs. No row back: held by another owner, or no such session.
   * Concurrent takers serialise on the row; the second sees the first's lease and gets nothing.
   * Parameters: session, owner, ttl ms.
   */
  acquire: `INSERT INTO "${s}".session_leases AS l (session_id, owner, epoch, expires_at)
    SELECT $1, $2, 1, clock_timestamp() + $3 * interval '1 millisecond' WHERE EXISTS (SELECT 1 FROM "${s}".sessions WHERE id = $1)
    ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at
    WHERE l.expires_at <= clock_timestamp() OR l.owner = EXCLUDED.owner
    RETURNING epoch::text AS epoch`,
  /** Who holds a session's lease and for how much longer (ms, negative when expired). Parameter: session. */
  holder: `SELECT owner, epoch::text AS epoch,
      CASE WHEN expires_at = '-infinity' THEN -1 ELSE (extract(epoch FROM (expires_at - clock_timestamp())) * 1000)::float8 END AS "expiresInMs"
    FROM "${s}".session_leases WHERE session_id = $1`,
  /** Who holds each of the sessions' leases: `session_id`, owner, epoch (a session without a row is missing). Parameter: sessions. */
  holders: `SELECT session_id, owner, epoch::text AS epoch FROM "${s}".session_leases WHERE session_id = ANY($1::text[])`,
  /**
   * What a host that does not have a session open needs on a mailbox wake-up, in one statement
   * and without reading a log: whether the session exists, whether another owner than `$2` holds a
   * live lease on it or on one of its subagent ancestors (the header's
   * `delegation.parentSessionId`, up to 32 levels: a child is opened through its parent, so the
   * parent's holder owns it), and whether it has pending mail. A hint: `acquire` still decides.
   * Parameters: session, owner.
   */
  wake: `WITH RECURSIVE chain(id, depth) AS (
      SELECT id, 0 FROM "${s}".sessions WHERE id = $1
      UNION ALL
      SELECT p.id, c.depth + 1 FROM chain c
        JOIN "${s}".sessions t ON t.id = c.id
        JOIN "${s}".sessions p ON p.id = t.header::jsonb -> 'delegation' ->> 'parentSessionId'
      WHERE c.depth < 32
    )
    SELECT EXISTS (SELECT 1 FROM chain) AS stored,
      EXISTS (SELECT 1 FROM chain c JOIN "${s}".session_leases l ON l.session_id = c.id WHERE l.owner <> $2 AND l.expires_at > clock_timestamp()) AS "heldElsewhere",
      EXISTS (SELECT 1 FROM "${s}".session_mailbox m WHERE m.session_id = $1 AND m.delivered_seq IS NULL AND m.done_at IS NULL) AS "pendingMail"`,
  /**
   * Renews every lease `$1` still holds among `$3` (sessions) / `$4` (their epochs) for `$2` ms;
   * returns the sessions renewed — one missing was taken over. Parameters: owner, ttl ms, sessions, epochs.
   */
  renew: `UPDATE "${s}".session_leases AS l SET expires_at = clock_timestamp() + $2 * interval '1 millisecond'
    FROM unnest($3::text[], $4::bigint[]) AS h(session_id, epoch)
    WHERE l.session_id = h.session_id AND l.owner = $1 AND l.epoch = h.epoch
    RETURNING l.session_id`,
  /** Gives a lease up (expired at once; the row and its epoch stay). Parameters: session, owner, epoch. */
  release: `UPDATE "${s}".session_leases SET expires_at = '-infinity' WHERE session_id = $1 AND owner = $2 AND epoch = $3::bigint`,
  /**
   * Sessions whose lease ran out without being released — their host stopped renewing (it died, or
   * lost the database) — oldest expiry first: what a host resumes on failover. Parameters: limit.
   */
  expired: `SELECT session_id AS id, owner, epoch::text AS epoch FROM "${s}".session_leases
    WHERE expires_at <= clock_timestamp() AND expires_at > '-infinity' ORDER BY expires_at LIMIT $1`,
})
