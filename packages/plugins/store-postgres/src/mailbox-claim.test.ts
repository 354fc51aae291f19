// A splice marks delivered only the mailbox entry its owner claimed (mailbox.claim) at the lease
// epoch the splice is written under — not every entry of the id. An entry posted while the owner's
// own admission of the same id was not yet committed would otherwise be marked delivered by that
// commit: it would never run (a delivered entry is not pending) and its sender would get no answer.
import { describe, expect, it } from 'vitest'
import { BosunError, Session, createUserMessage } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, header, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — mailbox claims', () => {
  const pg = usePostgres()

  it('a splice marks delivered the entry its owner claimed, and leaves an unclaimed entry of the same id pending', async () => {
    const schema = pg.schema()
    const admit = postgresStore({ url: pg.url(), schema, owner: 'any-host' })
    const owner = postgresStore({ url: pg.url(), schema, owner: 'owner-host' })
    const stored = await owner.create(header('s'))
    await admit.mailbox.post('s', { messageId: 'c-1', body: { text: 'claimed' } })
    await admit.mailbox.post('s', { messageId: 'c-2', body: { text: 'not claimed' } })
    const [one, two] = await owner.mailbox.pending('s')
    // Only the lease holder claims, and only the entry as read (its position).
    await expect(admit.mailbox.claim('s', 'c-1', one!.position)).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    expect(await owner.mailbox.claim('s', 'c-1', two!.position)).toBe(false)
    expect(await owner.mailbox.claim('s', 'c-1', one!.position)).toBe(true)
    const session = new Session(stored.header, stored.events, { writer: stored.writer })
    const spliced = session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage('claimed', { id: 'c-1' }), createUserMessage('direct', { id: 'c-2' })] })
    await session.flush()
    expect(await admit.mailbox.get('s', 'c-1')).toMatchObject({ deliveredSeq: spliced.seq })
    expect(await admit.mailbox.get('s', 'c-2')).toMatchObject({ deliveredSeq: null, doneAt: null })
    expect((await owner.mailbox.pending('s')).map((m) => m.messageId)).toEqual(['c-2'])
    // A delivered entry is not claimed again.
    expect(await owner.mailbox.claim('s', 'c-1', one!.position)).toBe(false)
    await stored.writer.close()
    await Promise.all([admit.close(), owner.close()])
  })

  it('in a group commit too, and a claim made under an earlier epoch does not count after a takeover', async () => {
    const schema = pg.schema()
    const a = postgresStore({ url: pg.url(), schema, owner: 'host-a' })
    const b = postgresStore({ url: pg.url(), schema, owner: 'host-b' })
    // s2's entry claimed by host A, whose lease then runs out: host B takes s2 over and does not claim it.
    const old = await a.create(header('s2'))
    await a.mailbox.post('s2', { messageId: 'm', body: { text: 's2' } })
    const [before] = await a.mailbox.pending('s2')
    expect(await a.mailbox.claim('s2', 'm', before!.position)).toBe(true)
    await pg.sql(`UPDATE "${schema}".session_leases SET expires_at = '-infinity' WHERE session_id = 's2'`)
    const taken = (await b.open('s2'))!
    const lost: string[] = []
    a.onLeaseLost((session) => lost.push(session))
    await expect(a.mailbox.claim('s2', 'm', before!.position)).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    // Reported lost at once, as a fenced write is: the host drops the session now, not at the next renewal.
    expect(lost).toEqual(['s2'])
    // s3's entry claimed by host B.
    const made = await b.create(header('s3'))
    await b.mailbox.post('s3', { messageId: 'm', body: { text: 's3' } })
    const [s3] = await b.mailbox.pending('s3')
    expect(await b.mailbox.claim('s3', 'm', s3!.position)).toBe(true)
    // Both of B's writers flush in one tick: one group round.
    const two = new Session(taken.header, taken.events, { writer: taken.writer })
    const three = new Session(made.header, made.events, { writer: made.writer })
    two.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage('s2', { id: 'm' })] })
    const spliced = three.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage('s3', { id: 'm' })] })
    await Promise.all([two.flush(), three.flush()])
    expect(await b.mailbox.get('s3', 'm')).toMatchObject({ deliveredSeq: spliced.seq })
    expect(await b.mailbox.get('s2', 'm')).toMatchObject({ deliveredSeq: null, doneAt: null })
    expect((await b.mailbox.pending('s2')).map((m) => m.messageId)).toEqual(['m'])
    await old.writer.close().catch(() => {})
    await Promise.all([taken.writer.close(), made.writer.close()])
    await Promise.all([a.close(), b.close()])
  })

  it('a reopened entry is unclaimed: the splice of the run given up on before the reopen does not mark it delivered', async () => {
    const schema = pg.schema()
    const owner = postgresStore({ url: pg.url(), schema, owner: 'owner-host' })
    const other = postgresStore({ url: pg.url(), schema, owner: 'other-host' })
    const stored = await owner.create(header('s'))
    await other.mailbox.post('s', { messageId: 'm', body: { text: 'slow' } })
    // The owner claims and runs it, gives up on the run (answered 503), and the sender posts it again.
    const [entry] = await owner.mailbox.pending('s')
    expect(await owner.mailbox.claim('s', 'm', entry!.position)).toBe(true)
    expect(await owner.mailbox.complete('s', 'm', { status: 503 })).toBe(true)
    expect(await other.mailbox.reopen('s', 'm', { body: { text: 'slow' }, position: entry!.position })).toBe(true)
    // The given-up run admits it after all: its splice, under the same epoch, leaves the reopened entry pending, for its own run.
    const session = new Session(stored.header, stored.events, { writer: stored.writer })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage('slow', { id: 'm' })] })
    await session.flush()
    const [reopened] = await owner.mailbox.pending('s')
    expect(reopened).toMatchObject({ messageId: 'm', deliveredSeq: null, doneAt: null })
    expect(await owner.mailbox.claim('s', 'm', reopened!.position)).toBe(true)
    await stored.writer.close()
    await Promise.all([owner.close(), other.close()])
  })
})
