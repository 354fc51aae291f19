// Mail only for a stored session (layout 5): a post for a session never made, or removed — also
// one that waited for the removal's lock — is refused (SESSION_NOT_FOUND), so a session made later
// under the same id starts with no mail, and `mailbox.sessions()` never lists an id no session has.
// Before, the mailbox took posts for any id: a relay or a lost owner's hand-over that committed
// after the removal left the mail pending for ever, and the next session of that id ran it.
import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { BosunError } from '@bosun/core'
import { SESSION_NOT_FOUND } from './index.js'
import { migrations, SCHEMA_VERSION } from './schema.js'
import { postgresStore } from './store.js'
import { available, event, header, until, usePostgres } from './testing/postgres.js'

const notFound = (e: unknown) => BosunError.is(e, SESSION_NOT_FOUND)

describe.skipIf(!available)('postgres store — mail only for a stored session', () => {
  const db = usePostgres()
  const stores = (schema = db.schema()) => {
    const made = (owner: string) => postgresStore({ url: db.url(), schema, owner, leaseTtlMs: 60_000 })
    return { schema, a: made('host-a'), b: made('host-b') }
  }
  const mailRows = async (schema: string) => (await db.sql<{ session: string; message: string }>(`SELECT session_id AS session, message_id AS message FROM "${schema}".session_mailbox ORDER BY id`))

  it('a post for a session never made is refused, naming the session and what to do', async () => {
    const { schema, a } = stores()
    const refused = await a.mailbox.post('nobody', { messageId: 'm1', body: { text: 'hi' } }).catch((e: unknown) => e)
    expect(notFound(refused)).toBe(true)
    expect((refused as BosunError).details).toMatchObject({ session: 'nobody', messageId: 'm1' })
    expect((refused as Error).message).toContain('message "m1" was not posted: no session "nobody" is stored (it was never created, or it was removed). Create the session first')
    expect(await mailRows(schema)).toEqual([])
    expect(await a.mailbox.sessions()).toEqual([])
    await a.close()
  })

  it('a post after the removal is refused, and a session made again under the id has no mail (R13)', async () => {
    const { schema, a, b } = stores()
    const made = await a.create(header('x'))
    await made.writer.close()
    expect(await a.remove('x')).toBe(true)
    // A relay or a hand-over from another host that saw the session just before it went.
    const refused = await b.mailbox.post('x', { messageId: 'm1', body: { text: 'PRIVATE text sent to the removed session' } }).catch((e: unknown) => e)
    expect(notFound(refused)).toBe(true)
    expect(await a.mailbox.sessions()).toEqual([])
    const again = await a.create(header('x'))
    expect(await a.mailbox.pending('x')).toEqual([])
    expect(await a.mailbox.get('x', 'm1')).toBeUndefined()
    expect(await mailRows(schema)).toEqual([])
    // The new session takes mail as any other.
    expect((await b.mailbox.post('x', { messageId: 'm1', body: { text: 'new' } })).created).toBe(true)
    await again.writer.close()
    await Promise.all([a.close(), b.close()])
  })

  it('a post racing the removal waits for it and is refused; nothing is left behind', async () => {
    const { schema, a, b } = stores()
    const made = await a.create(header('x'), [event(0)])
    await made.writer.close()
    // Holds the session's event row: the removal stops at its DELETE of the events, holding the session's row.
    const client = new pg.Client({ connectionString: db.url() })
    await client.connect()
    await client.query('BEGIN')
    await client.query(`SELECT 1 FROM "${schema}".session_events WHERE session_id = $1 FOR UPDATE`, ['x'])
    const removed = a.remove('x')
    const waiting = (n: number) => until(async () => {
      const found = await db.sql<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [`%"${schema}"%`])
      return Number(found[0]!.n) >= n
    }, `${n} statements waiting for a lock`)
    await waiting(1)
    const posted = b.mailbox.post('x', { messageId: 'late', body: { text: 'racing the removal' } }).catch((e: unknown) => e)
    // The post's foreign key check waits for the session's row (before: it committed at once, and
    // was deleted only because the removal's DELETE of the mailbox came later — a moment later it is left).
    await waiting(2)
    await client.query('COMMIT')
    await client.end()
    expect(await removed).toBe(true)
    expect(notFound(await posted)).toBe(true)
    expect(await mailRows(schema)).toEqual([])
    await Promise.all([a.close(), b.close()])
  })

  it('a schema at layout 4 is migrated: mail of no stored session (left by earlier builds) is deleted, the rest kept', async () => {
    const schema = db.schema()
    await db.sql(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".bosun_schema (version integer NOT NULL); INSERT INTO "${schema}".bosun_schema VALUES (4)`)
    for (const step of migrations(schema).slice(0, 4)) await db.sql(step)
    await db.sql(`INSERT INTO "${schema}".sessions (id, header, created_at, length) VALUES ('kept', $1, 1, 0)`, [JSON.stringify(header('kept'))])
    await db.sql(`INSERT INTO "${schema}".session_mailbox (session_id, message_id, kind, body) VALUES ('kept', 'k1', 'message', '1'), ('gone', 'g1', 'message', '"left by a removal"')`)
    const store = postgresStore({ url: db.url(), schema, owner: 'host-a' })
    expect(await store.mailbox.sessions()).toEqual(['kept'])
    expect(await db.sql(`SELECT version FROM "${schema}".bosun_schema`)).toEqual([{ version: SCHEMA_VERSION }])
    expect(await mailRows(schema)).toEqual([{ session: 'kept', message: 'k1' }])
    expect(notFound(await store.mailbox.post('gone', { messageId: 'g2', body: 1 }).catch((e: unknown) => e))).toBe(true)
    const made = await store.create(header('gone'))
    expect(await store.mailbox.pending('gone')).toEqual([])
    await made.writer.close()
    await store.close()
  })
})
