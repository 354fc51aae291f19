// mailbox.reopen: a message its owner closed without delivering it (an error answer) is posted
// again — pending once more, with the new body, after the mail posted before now — only while it
// is the entry the caller read; a pending, delivered or already reopened entry is left alone.
import { describe, expect, it } from 'vitest'
import { BosunError, Session, createUserMessage } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, header, until, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — mailbox.reopen', () => {
  const pg = usePostgres()

  it('reopens a done, undelivered entry once, after the mail before it, and nothing else', async () => {
    const schema = pg.schema()
    const owner = postgresStore({ url: pg.url(), schema, owner: 'owner-host' })
    const other = postgresStore({ url: pg.url(), schema, owner: 'other-host' })
    const stored = await owner.create(header('s'))
    const first = await other.mailbox.post('s', { messageId: 'm-1', body: { text: 'first' } })
    // Pending: nothing to reopen.
    expect(await other.mailbox.reopen('s', 'm-1', { body: { text: 'again' }, position: first.entry.position })).toBe(false)
    await other.mailbox.post('s', { messageId: 'm-2', body: { text: 'later' } })
    expect(await owner.mailbox.complete('s', 'm-1', { status: 503 })).toBe(true)

    // The owner hears of it as of a new post (a NOTIFY naming it), once its LISTEN connection is up.
    const heard: string[] = []
    const watcher = owner.watch({ pollIntervalMs: 60_000 })
    const listening = new Promise<void>((resolve) => watcher.onListen(resolve))
    const stop = watcher.onMailbox((session, messageId) => {
      if (messageId !== undefined) heard.push(`${session} ${messageId}`)
    })
    await listening
    const done = (await other.mailbox.get('s', 'm-1'))!
    const [won, lost] = await Promise.all([other.mailbox.reopen('s', 'm-1', { body: { text: 'again' }, position: done.position }), owner.mailbox.reopen('s', 'm-1', { body: { text: 'racing' }, position: done.position })])
    expect([won, lost].sort()).toEqual([false, true])
    const reopened = (await other.mailbox.get('s', 'm-1'))!
    expect(reopened).toMatchObject({ doneAt: null, outcome: null, deliveredSeq: null })
    expect(['again', 'racing']).toContain((reopened.body as { text: string }).text)
    expect(BigInt(reopened.position) > BigInt(done.position)).toBe(true)
    // After the mail posted before it; a stale position does nothing.
    expect((await owner.mailbox.pending('s')).map((m) => m.messageId)).toEqual(['m-2', 'm-1'])
    expect(await other.mailbox.reopen('s', 'm-1', { body: 1, position: done.position })).toBe(false)

    // Delivered: never reopened, even when done with an error first.
    const [pendingOne] = (await owner.mailbox.pending('s')).filter((m) => m.messageId === 'm-1')
    expect(await owner.mailbox.claim('s', 'm-1', pendingOne!.position)).toBe(true)
    const session = new Session(stored.header, stored.events, { writer: stored.writer })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage('hi', { id: 'm-1' })] })
    await session.flush()
    expect(await owner.mailbox.complete('s', 'm-1', { status: 500 })).toBe(true)
    const delivered = (await other.mailbox.get('s', 'm-1'))!
    expect(await other.mailbox.reopen('s', 'm-1', { body: 1, position: delivered.position })).toBe(false)
    await expect(other.mailbox.reopen('s', 'm-1', { body: 1, position: 'x' })).rejects.toSatisfy((e) => BosunError.is(e, 'INVALID_ARGUMENT'))

    await until(() => heard.includes('s m-1'), 'the reopen NOTIFYed')
    stop()
    await watcher.close()
    await stored.writer.close()
    await Promise.all([owner.close(), other.close()])
  })

  it('a late complete() of the entry as read before a reopen leaves the reopened post pending, and is no lost lease', async () => {
    const schema = pg.schema()
    const owner = postgresStore({ url: pg.url(), schema, owner: 'owner-host' })
    const other = postgresStore({ url: pg.url(), schema, owner: 'other-host' })
    const stored = await owner.create(header('s'))
    const lost: string[] = []
    owner.onLeaseLost((session) => lost.push(session))
    await other.mailbox.post('s', { messageId: 'm', body: { text: 'first' } })
    const [read] = await owner.mailbox.pending('s')
    // Answered (given up on: 503), then posted again by its sender.
    expect(await owner.mailbox.complete('s', 'm', { status: 503 }, read!.position)).toBe(true)
    expect(await other.mailbox.reopen('s', 'm', { body: { text: 'again' }, position: read!.position })).toBe(true)
    // A late answer for the entry as first read: not the reopened post's.
    expect(await owner.mailbox.complete('s', 'm', { status: 202 }, read!.position)).toBe(false)
    const [reopened] = await owner.mailbox.pending('s')
    expect(reopened).toMatchObject({ messageId: 'm', doneAt: null, outcome: null, body: { text: 'again' } })
    expect(lost).toEqual([])
    // The reopened post's own answer closes it.
    expect(await owner.mailbox.complete('s', 'm', { status: 202 }, reopened!.position)).toBe(true)
    await expect(owner.mailbox.complete('s', 'm', null, 'x')).rejects.toSatisfy((e) => BosunError.is(e, 'INVALID_ARGUMENT'))
    await stored.writer.close()
    await Promise.all([owner.close(), other.close()])
  })
})
