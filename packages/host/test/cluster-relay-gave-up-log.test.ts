// What the owner logs when it gives up on a relayed message's run says what its sender was
// answered. A run that admitted the message (its splice committed) and then hung — here its route
// answered, and what ran after it did not — is not answered 503 at the give-up: the entry is
// delivered, so it is left to its lookup. The log line said "Answered 503 session-unavailable"
// all the same, sending whoever read it to look for a 503 no client was given. Real PostgreSQL,
// two hosts on 127.0.0.1; the owner's app runs the real route for the message, then hangs.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { admissionsOf, available, onRelayed, post, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — the log line of a given-up relayed message', () => {
  const cluster = useCluster()
  const serve = useServers()
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('says the message was admitted and left to its lookup, not that it was answered 503', { timeout: 120_000 }, async () => {
    // B answers `pending` at once. The limit is A's: long enough for the real route's durable commit
    // on a loaded machine, which must end before it (the admission is what the line is about).
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 0, relayRunMs: 5000, pollIntervalMs: 200 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('gave up on mailbox entry')) lines.push(args[0])
    })

    const real = a!.host.app.fetch
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let routeAnswered: number | undefined
    onRelayed(a!, async (request) => {
      if (!(await request.clone().text()).includes('"late"')) return undefined
      const answered = await real(request)
      routeAnswered = answered.status
      await released
      return answered
    })

    try {
      const sent = await post(onB, '/v1/sessions/s/messages', { clientMessageId: 'late', content: 'hi' })
      expect(((await sent.json()) as { status: string }).status).toBe('pending')
      await waitFor(() => lines.length > 0, 60_000, 'A to give up on the run of "late"')
      expect(routeAnswered, 'the route admitted the message before the give-up').toBe(202)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain('"late"')
      expect(lines[0]).not.toContain('503')
      expect(lines[0]).toContain('admitted')
      // Indeed not answered: the entry is delivered and not done; its lookup finds it in the log.
      const entry = await b!.store.mailbox.get('s', 'late')
      expect({ delivered: entry?.deliveredSeq != null, done: entry?.doneAt != null }).toEqual({ delivered: true, done: false })
      const lookup = await fetch(`${onB}/v1/sessions/s/messages/late`)
      expect(lookup.status).toBe(200)
      expect(((await lookup.json()) as { state: string }).state).not.toBe('pending')
    } finally {
      release()
    }
    expect(admissionsOf((await b!.store.read('s'))!.events, 'late')).toBe(1)
  })
})
