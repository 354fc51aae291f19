import { describe, expect, it } from 'vitest'
import { BosunError, Session, createUserMessage } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, header, until, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — mailbox and wake-ups', () => {
  const pg = usePostgres()

  it('posting is idempotent by client message id: the first post wins, a repeat changes nothing', async () => {
    const store = postgresStore({ url: pg.url(), schema: pg.schema(), owner: 'host-a' })
    await (await store.create(header('s'))).writer.close()
    const first = await store.mailbox.post('s', { messageId: 'c-1', body: { text: 'hello' } })
    const again = await store.mailbox.post('s', { messageId: 'c-1', body: { text: 'changed' } })
    expect(first).toMatchObject({ created: true, entry: { messageId: 'c-1', session: 's', kind: 'message', body: { text: 'hello' }, admittedBy: 'host-a', deliveredSeq: null } })
    expect(again).toMatchObject({ created: false, entry: { body: { text: 'hello' }, position: first.entry.position } })
    await store.mailbox.post('s', { messageId: 'c-2', kind: 'cancel', body: { target: 'c-1' } })
    expect((await store.mailbox.pending('s')).map((m) => [m.messageId, m.kind])).toEqual([['c-1', 'message'], ['c-2', 'cancel']])
    expect(await store.mailbox.sessions()).toEqual(['s'])
    await store.close()
  })

  it('concurrent posts of one message id from many hosts store it once', async () => {
    const schema = pg.schema()
    const hosts = [1, 2, 3, 4].map((n) => postgresStore({ url: pg.url(), schema, owner: `h${n}`, poolSize: 2 }))
    await (await hosts[0]!.create(header('s'))).writer.close()
    const results = await Promise.all(hosts.flatMap((h) => [0, 1, 2].map(() => h.mailbox.post('s', { messageId: 'same', body: 1 }))))
    expect(results.filter((r) => r.created)).toHaveLength(1)
    expect(new Set(results.map((r) => r.entry.position)).size).toBe(1)
    await Promise.all(hosts.map((h) => h.close()))
  })

  it('the batch that splices a claimed mailbox message into the inbox marks it delivered, in the same transaction', async () => {
    const schema = pg.schema()
    const admit = postgresStore({ url: pg.url(), schema, owner: 'any-host' })
    const owner = postgresStore({ url: pg.url(), schema, owner: 'owner-host' })
    const stored = await owner.create(header('s'))
    await admit.mailbox.post('s', { messageId: 'c-7', body: { text: 'from another host' } })
    const [mail] = await owner.mailbox.pending('s')
    expect(await owner.mailbox.claim('s', mail!.messageId, mail!.position)).toBe(true)
    const session = new Session(stored.header, stored.events, { writer: stored.writer })
    session.append('turn/start', { turn: 1 })
    const spliced = session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage((mail!.body as { text: string }).text, { id: mail!.messageId })] })
    await session.flush()
    expect(await admit.mailbox.get('s', 'c-7')).toMatchObject({ deliveredSeq: spliced.seq })
    expect(await owner.mailbox.pending('s')).toEqual([])
    await stored.writer.close()
    await Promise.all([admit.close(), owner.close()])
  })

  it('complete() closes a message only under the session lease: a taken-over owner is refused', async () => {
    const schema = pg.schema()
    const a = postgresStore({ url: pg.url(), schema, owner: 'host-a' })
    const b = postgresStore({ url: pg.url(), schema, owner: 'host-b' })
    const stored = await a.create(header('s'))
    await a.mailbox.post('s', { messageId: 'x', kind: 'cancel', body: { target: 'm1' } })
    await a.mailbox.post('s', { messageId: 'y', kind: 'cancel', body: { target: 'm2' } })
    await expect(b.mailbox.complete('s', 'x')).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    expect(await a.mailbox.complete('s', 'x', { canceled: true })).toBe(true)
    expect(await a.mailbox.complete('s', 'x')).toBe(false)
    expect(await b.mailbox.get('s', 'x')).toMatchObject({ outcome: { canceled: true }, doneAt: expect.any(Number) })
    await pg.sql(`UPDATE "${schema}".session_leases SET expires_at = '-infinity'`)
    const taken = await b.open('s')
    await expect(a.mailbox.complete('s', 'y')).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    expect(await b.mailbox.complete('s', 'y')).toBe(true)
    await taken!.writer.close()
    await stored.writer.close().catch(() => {})
    await Promise.all([a.close(), b.close()])
  })

  it('appends and mail wake a watcher through NOTIFY; what is notified while LISTEN is down is found by polling', async () => {
    const schema = pg.schema()
    const writer = postgresStore({ url: pg.url(), schema, owner: 'writer' })
    const reader = postgresStore({ url: pg.url(), schema, owner: 'reader' })
    const stored = await writer.create(header('s'))
    // Polling every minute: within this test, only NOTIFY and the poll after a reconnect can wake
    // it. Reconnecting waits 3 s, so the append below lands while nothing listens.
    const watcher = reader.watch({ pollIntervalMs: 60_000, reconnectDelayMs: 3_000 })
    const lengths: number[] = []
    const mail: Array<[string, string | undefined]> = []
    watcher.onEvents('s', (length) => lengths.push(length))
    watcher.onMailbox((session, id) => mail.push([session, id]))
    await watcher.whenListening()

    const session = new Session(stored.header, stored.events, { writer: stored.writer })
    session.append('turn/start', { turn: 1 })
    await session.flush()
    await until(() => lengths.includes(1), 'the NOTIFY of the first append')
    await writer.mailbox.post('s', { messageId: 'm1', body: 'hi' })
    await until(() => mail.some(([, id]) => id === 'm1'), 'the NOTIFY of a post')
    expect(watcher.stats.notifications).toBeGreaterThanOrEqual(2)
    expect(await reader.readEvents('s', 0)).toEqual(session.events)

    // Kill the LISTEN connection, and write while no connection listens: those NOTIFYs are lost.
    const pid = watcher.backendPid!
    const { killed } = (await pg.sql<{ killed: boolean }>('SELECT pg_terminate_backend($1) AS killed', [pid]))[0]!
    expect(killed).toBe(true)
    await until(() => !watcher.listening, 'the watcher to see its connection gone')
    const notified = watcher.stats.notifications
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await session.flush()
    expect(watcher.listening).toBe(false)
    await until(() => watcher.listening, 'the watcher to reconnect')
    await until(() => lengths.includes(2), 'the poll after reconnecting to find the append')
    // Found by the poll: its NOTIFY went to no one.
    expect(watcher.stats.notifications).toBe(notified)
    expect(watcher.stats.reconnects).toBeGreaterThanOrEqual(1)
    expect(await reader.readEvents('s', 1)).toEqual(session.events.slice(1))
    await watcher.close()
    await stored.writer.close()
    await Promise.all([writer.close(), reader.close()])
  })

  it('polling alone wakes a watcher whose LISTEN connection cannot come back', async () => {
    const schema = pg.schema()
    const writer = postgresStore({ url: pg.url(), schema, owner: 'writer' })
    const reader = postgresStore({ url: pg.url(), schema, owner: 'reader' })
    const stored = await writer.create(header('s'))
    const watcher = reader.watch({ pollIntervalMs: 50, reconnectDelayMs: 60_000 })
    const lengths: number[] = []
    watcher.onEvents('s', (length) => lengths.push(length))
    await watcher.whenListening()
    await pg.sql('SELECT pg_terminate_backend($1)', [watcher.backendPid!])
    await until(() => !watcher.listening, 'the connection to drop')
    const session = new Session(stored.header, stored.events, { writer: stored.writer })
    session.append('turn/start', { turn: 1 })
    await session.flush()
    await until(() => lengths.includes(1), 'a poll to find the append')
    expect(watcher.listening).toBe(false)
    await watcher.close()
    await stored.writer.close()
    await Promise.all([writer.close(), reader.close()])
  })
})
