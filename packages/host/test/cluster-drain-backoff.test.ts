// The owner's rounds of carrying out a session's mail keep failing (the store is down) while
// wake-ups keep coming: the rounds back off (a pause after each failed one, doubling from 25 ms)
// and the failing streak is logged once, not once a round; a round that succeeds ends the streak
// (logged once), and the next failure starts a new one at the shortest pause. Counted in rounds
// and log lines, never in time. Real PostgreSQL, two hosts: A owns the session, B relays to it.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DrainBackoff } from '../src/cluster/drain-backoff.js'
import { admissionsOf, available, post, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — rounds of carrying out mail that keep failing', () => {
  const cluster = useCluster()
  const serve = useServers()
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('back off while wake-ups keep coming, log the streak once, and start again at the shortest pause', { timeout: 120_000 }, async () => {
    // B answers `pending` at once; no poll within the test: only the wake-ups below run rounds.
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 0, pollIntervalMs: 600_000 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)

    // A's reads of the session's pending mail fail while `failing` says so: each failed read is a failed round.
    const mailbox = a!.store.mailbox
    const read = mailbox.pending.bind(mailbox)
    let failing = true
    let failedRounds = 0
    mailbox.pending = async (session, limit) => {
      if (session === 's' && failing) {
        failedRounds++
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' })
      }
      return read(session, limit)
    }
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('the mail of session s ')) lines.push(args[0])
    })

    const sent = await post(onB, '/v1/sessions/s/messages', { clientMessageId: 'm-1', content: 'one' })
    expect(((await sent.json()) as { status: string }).status).toBe('pending')
    // 200 wake-ups, one a macrotask, as NOTIFYs keep coming: without a pause, each was a round.
    const cluster_ = a!.host.cluster!
    for (let i = 0; i < 200; i++) {
      void cluster_.drain('s')
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    expect(failedRounds, 'rounds run for 200 wake-ups').toBeGreaterThan(0)
    expect(failedRounds, 'rounds run for 200 wake-ups').toBeLessThan(20)
    expect(lines, 'the streak logged once').toHaveLength(1)
    expect(lines[0]).toContain('trying again in 25 ms')

    // The store is back: the next round carries the message out and ends the streak, logged once.
    failing = false
    await cluster_.drain('s')
    const events = (await a!.store.read('s'))!.events
    expect(admissionsOf(events, 'm-1')).toBe(1)
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain(`works again, after ${failedRounds} failed round${failedRounds === 1 ? '' : 's'}.`)

    // A new failure is a new streak: logged, and paused for the shortest time again.
    failing = true
    await cluster_.drain('s')
    expect(lines).toHaveLength(3)
    expect(lines[2]).toContain('trying again in 25 ms')
    failing = false
    await cluster_.drain('s')
    expect(lines[3]).toContain('works again, after 1 failed round.')
  })

  it("the poll has the backoff forget streaks no round adds to any more, but not one whose round is under way", { timeout: 120_000 }, async () => {
    // A session whose last round failed and that gets no more mail runs no round here again: only
    // the poll can drop its streak (drain-backoff.test.ts: which streaks are stale). Seen from the
    // backoff's side: each poll's call, whether it was told the session has a round under way, and
    // what it kept.
    const [a] = cluster.hosts(1, { host: { cluster: { pollIntervalMs: 100 } } })
    const onA = await serve(a!)
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    const calls: Array<{ running: boolean; kept: number }> = []
    const forget = DrainBackoff.prototype.forgetStale
    vi.spyOn(DrainBackoff.prototype, 'forgetStale').mockImplementation(function (this: DrainBackoff, running = () => false) {
      forget.call(this, running)
      calls.push({ running: running('s'), kept: this.size })
    })
    vi.spyOn(console, 'error').mockImplementation(() => {})

    // A round of `s` that hangs in its read of the mailbox, then fails.
    const mailbox = a!.store.mailbox
    const read = mailbox.pending.bind(mailbox)
    let fail!: () => void
    const failing = new Promise<never>((_, reject) => (fail = () => reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }))))
    failing.catch(() => {})
    mailbox.pending = async (session, limit) => (session === 's' ? failing : read(session, limit))
    const round = a!.host.cluster!.drain('s')
    await waitFor(() => calls.some((c) => c.running), 60_000, 'a poll while the round of s is under way')
    fail()
    await round
    const after = calls.length
    await waitFor(() => calls.length > after, 60_000, 'a poll after the round of s')
    // Its streak is not stale yet (a minute after its pause): kept, and no longer said to be running.
    expect(calls.at(-1)).toEqual({ running: false, kept: 1 })
  })
})
