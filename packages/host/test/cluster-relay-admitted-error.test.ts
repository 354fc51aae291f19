// A relayed message the owner admitted (its splice committed, so the mailbox entry is delivered)
// but then answered with an error — a store error after the commit reached the database (the
// connection dropped before PostgreSQL's reply), so `?wait=durable` threw. The entry used to be
// done with that error: the sender got it, sending the message again (what the error says to do)
// found the entry done and delivered, which a451d39's reopen rightly refuses, and answered the
// same error for ever, while the message was in the log and its lookup said so. The owner knows
// better than one host here: the entry says the message was admitted, so its answer is the
// admission's receipt. Real PostgreSQL, two hosts on 127.0.0.1; the owner's app runs the real
// route for the message and then answers the error in its place, once.
import { describe, expect, it } from 'vitest'
import { admissionsOf, available, onRelayed, useCluster, useServers } from './cluster-helpers.js'

type Receipt = { accepted: boolean; messageId: string; duplicate: boolean; seq: number }

describe.skipIf(!available)('host cluster on PostgreSQL — a message admitted by the owner and answered with an error', () => {
  const cluster = useCluster()
  const serve = useServers()
  const post = async (url: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: await response.json() }
  }

  it('is answered with its receipt, and sending it again is its duplicate, not the error again', { timeout: 90_000 }, async () => {
    // A wait long enough never to end on a loaded machine: an answer is the owner's, never `pending`.
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 30_000, pollIntervalMs: 200 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    const real = a!.host.app.fetch
    let runs = 0
    onRelayed(a!, async (request) => {
      if (!(await request.clone().text()).includes('"ambiguous"')) return undefined
      runs++
      if (runs > 1) return undefined
      // The route runs (the message is admitted and committed), then its answer is lost to an error.
      expect((await real(request)).status).toBe(202)
      return Response.json({ error: { code: 'internal-error', message: 'the store failed; retry' } }, { status: 500 })
    })

    const first = await post(onB, '/v1/sessions/s/messages', { clientMessageId: 'ambiguous', content: 'hi' })
    expect(first.status, JSON.stringify(first.body)).toBe(202)
    expect(first.body).toMatchObject({ accepted: true, messageId: 'ambiguous' })
    const again = await post(onB, '/v1/sessions/s/messages', { clientMessageId: 'ambiguous', content: 'hi' })
    expect(again.status, JSON.stringify(again.body)).toBe(202)
    expect(again.body).toMatchObject({ accepted: true, messageId: 'ambiguous', duplicate: true, seq: (first.body as Receipt).seq })
    expect(admissionsOf((await b!.store.read('s'))!.events, 'ambiguous')).toBe(1)
  })
})
