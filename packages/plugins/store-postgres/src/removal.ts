import type { Database } from './database.js'
import { sessionLocked, storeError } from './errors.js'
import type { LeaseHolder } from './leases.js'

/**
 * The statements of a removal, against schema `s`. Parameter: the session.
 *
 * Locks are taken in the order a write-behind batch takes them (schema.ts, `append`: the lease row
 * `FOR SHARE`, then the session's row by its UPDATE), so that a batch and a removal wait for each
 * other rather than deadlock: the lease row `FOR UPDATE`, then the session's row `FOR UPDATE`,
 * then the lease row again — one made between the two (a first lease of a session that had none)
 * is seen, and none can be made after (its foreign key check waits for the session's row).
 */
export const removalStatements = (s: string) => ({
  lease: `SELECT owner, epoch::text AS epoch,
      CASE WHEN expires_at = '-infinity' THEN -1 ELSE (extract(epoch FROM (expires_at - clock_timestamp())) * 1000)::float8 END AS "expiresInMs"
    FROM "${s}".session_leases WHERE session_id = $1 FOR UPDATE`,
  session: `SELECT 1 FROM "${s}".sessions WHERE id = $1 FOR UPDATE`,
  events: `DELETE FROM "${s}".session_events WHERE session_id = $1`,
  mailbox: `DELETE FROM "${s}".session_mailbox WHERE session_id = $1`,
  leases: `DELETE FROM "${s}".session_leases WHERE session_id = $1`,
  sessions: `DELETE FROM "${s}".sessions WHERE id = $1`,
})

/**
 * The payload of the NOTIFY on the sessions channel (schema.ts, `channels`) that says `session`
 * was removed: `removed:<session>`. A creation's payload is `<session> <owner>`; this one has no
 * space (an id has none, nor a `:`), so a watcher of an earlier build, which takes a payload
 * without a space for no creation, ignores it.
 */
export const removedPayload = (session: string): string => `removed:${session}`

/** The session a sessions-channel payload says was removed, or `undefined` for another payload. */
export function removedSession(payload: string): string | undefined {
  return payload.startsWith('removed:') ? payload.slice('removed:'.length) : undefined
}

/**
 * Removes a session in one transaction: refused (SESSION_LOCKED, naming the holder) while a live
 * lease holds it — another owner's, or this owner's name held by another store (the caller has
 * refused its own writers already); an expired or released lease does not block. Then its events,
 * mailbox, lease and row go, and the NOTIFY that says so is sent at the commit (inside the
 * transaction: only for a removal that committed). `false`: no session has the id.
 *
 * A write-behind batch of a lease holder racing the removal either commits first (and the removal,
 * finding its lease live, is refused) or waits for the removal's commit and finds its lease gone:
 * refused, nothing written (group-commit.ts). An `open` racing it waits, then finds no session.
 */
export async function removeSession(db: Database, removal: ReturnType<typeof removalStatements>, id: string): Promise<boolean> {
  try {
    return await db.transaction(async (client) => {
      await client.query(removal.lease, [id])
      if ((await client.query(removal.session, [id])).rowCount === 0) return false
      const holder = (await client.query<LeaseHolder>(removal.lease, [id])).rows[0]
      if (holder !== undefined && holder.expiresInMs > 0) throw sessionLocked(db.name, id, holder)
      await client.query(removal.events, [id])
      await client.query(removal.mailbox, [id])
      await client.query(removal.leases, [id])
      await client.query(removal.sessions, [id])
      await client.query('SELECT pg_notify($1, $2)', [db.channels.sessions, removedPayload(id)])
      return true
    })
  } catch (error) {
    // SESSION_LOCKED passes through as it is.
    throw storeError(db, `remove session "${id}"`, error, { session: id })
  }
}
