// A relayed request whose run on the owner never ends (a hook or a store call that never settles)
// no longer stops the session's mailbox: the owner gives up on it after `relayRunMs`, answers it
// `503 session-unavailable` (the message says the run may still take effect and how to find out),
// and carries out the next entry. A message whose run goes on and admits it after the answer is
// then answered `pending` (its lookup finds it in the log), never that 503 for ever. Real
// PostgreSQL, two hosts served on 127.0.0.1; the owner's app made to hang on chosen relayed requests.
import { describe, expect, it } from 'vitest'
import { admissionsOf, available, onRelayed, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

type ErrorBody = { error: { code: string; message: string; details?: { requestId?: string; afterMs?: number } } }

describe.skipIf(!available)('host cluster on PostgreSQL — a relayed request whose run hangs on the owner', () => {
  const cluster = useCluster()
  const serve = useServers()
  const send = (url: string, method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

  it('the sender gets 503 after relayRunMs, the mail after it is carried out, and a late admission is found', { timeout: 120_000 }, async () => {
    // B waits longer than the owner's limit: what it answers is the owner's answer, never `pending`.
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 60_000, relayRunMs: 5000, pollIntervalMs: 200 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect(a!.host.cluster!.relayRunMs).toBe(5000)
    expect((await send(onA, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)

    // The owner's runs of the message "hang-1" and of a cancel wait until the test lets them go.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const hung: string[] = []
    onRelayed(a!, async (request) => {
      const body = await request.clone().text()
      if (body.includes('"hang-1"') || new URL(request.url).pathname.endsWith('/cancel')) {
        hung.push(new URL(request.url).pathname)
        await released
      }
      return undefined
    })

    try {
      const message = await send(onB, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'hang-1', content: 'slow' })
      const refused = (await message.json()) as ErrorBody
      expect(message.status, JSON.stringify(refused)).toBe(503)
      expect(refused.error.code).toBe('session-unavailable')
      expect(refused.error.details?.afterMs).toBe(5000)
      expect(refused.error.message).toContain('gave up')
      expect(refused.error.message).toContain('may still take effect')
      expect(refused.error.message).toContain('/v1/sessions/s/messages/hang-1')

      // The mailbox goes on: the next message is admitted while the first run still hangs.
      const next = await send(onB, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm-2', content: 'hello' })
      const receipt = (await next.json()) as { status: string; duplicate: boolean }
      expect(next.status, JSON.stringify(receipt)).toBe(202)
      expect(receipt.status).not.toBe('pending')

      // A cancel that hangs: the same answer, which its lookup by request id gives too.
      const cancel = await send(onB, 'POST', '/v1/sessions/s/cancel', {})
      const canceled = (await cancel.json()) as ErrorBody
      expect({ status: cancel.status, code: canceled.error.code }).toEqual({ status: 503, code: 'session-unavailable' })
      expect(canceled.error.message).toContain('send the change again if it is not there')
      const request = await send(onB, 'GET', `/v1/sessions/s/requests/${encodeURIComponent(canceled.error.details!.requestId!)}`)
      expect({ status: request.status, body: await request.json() }).toEqual({ status: 503, body: canceled })
      expect(hung).toEqual(['/v1/sessions/s/messages', '/v1/sessions/s/cancel'])
    } finally {
      release()
    }

    // The given-up run goes on and admits the message: a send again is not told the 503 for ever.
    await waitFor(async () => (await b!.store.mailbox.get('s', 'hang-1'))?.deliveredSeq != null, 30_000, 'the late run to admit hang-1')
    const again = await send(onB, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'hang-1', content: 'slow' })
    const pending = (await again.json()) as { status: string; duplicate: boolean; lookup: string }
    expect({ status: again.status, state: pending.status, duplicate: pending.duplicate }).toEqual({ status: 202, state: 'pending', duplicate: true })
    const lookup = await send(onB, 'GET', pending.lookup)
    expect(lookup.status).toBe(200)
    expect(((await lookup.json()) as { state: string }).state).not.toBe('pending')
    const events = (await b!.store.read('s'))!.events
    expect([admissionsOf(events, 'hang-1'), admissionsOf(events, 'm-2')]).toEqual([1, 1])
  })
})
