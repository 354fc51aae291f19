// A round of carrying out a session's mail that is under way when its host closes — here waiting
// for a relayed run that ends only after the close — and fails since (its answer cannot be saved:
// the store is closed too) logged "failed; trying again in 25 ms", although nothing tries again
// after a close. It is said once that the host closed, and no round follows. Counted in rounds and
// log lines. Real PostgreSQL, two hosts: A owns the session, B relays the message to it.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { available, onRelayed, post, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — a round of carrying out mail that fails after the close', () => {
  const cluster = useCluster()
  const serve = useServers()
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('is logged once as ended by the close, not as tried again, and no round follows', { timeout: 120_000 }, async () => {
    // B answers `pending` at once; A's limit on a relayed run is never reached: the run ends when the test says.
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 0, relayRunMs: 600_000 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('the mail of session s ')) lines.push(args[0])
    })

    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let running = false
    onRelayed(a!, async (request) => {
      if (!(await request.clone().text()).includes('"late"')) return undefined
      running = true
      await released
      return new Response(JSON.stringify({ accepted: true }), { status: 202, headers: { 'content-type': 'application/json' } })
    })
    // A's reads of the session's pending mail after the close: each is a round run after it.
    const mailbox = a!.store.mailbox
    const read = mailbox.pending.bind(mailbox)
    let closed = false
    let roundsAfterClose = 0
    mailbox.pending = async (session, limit) => {
      if (session === 's' && closed) roundsAfterClose++
      return read(session, limit)
    }

    try {
      const sent = await post(onB, '/v1/sessions/s/messages', { clientMessageId: 'late', content: 'hi' })
      expect(((await sent.json()) as { status: string }).status).toBe('pending')
      await waitFor(() => running, 60_000, 'A to run the relayed message')
      // The round under way: its end, which the close does not wait for.
      const round = a!.host.cluster!.drain('s')
      await a!.host.close()
      closed = true
      await a!.store.close()
      release()
      await round
    } finally {
      release()
    }
    expect(roundsAfterClose, 'rounds after the close').toBe(0)
    expect(lines.filter((line) => line.includes('trying again')), 'lines that say it is tried again').toEqual([])
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('the host closed')
    expect(lines[0]).toContain('Nothing tries again here')
    expect(lines[0], 'what failed').toContain('is closed)')
  })
})
