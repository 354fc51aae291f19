// A relayed queue operation, cancel or wake is kept in the mailbox under a key of its own; a message
// under its clientMessageId. A client that sends a message under a request's key (a requestId it
// was given, or an older host's `request:<uuid>`) must not be answered that request's answer as its
// receipt. Real PostgreSQL, two hosts: A owns the session, B relays (relayWaitMs 0: a relayed
// request is answered `pending` with its requestId).
import { describe, expect, it } from 'vitest'
import { available, useCluster, useServers } from './cluster-helpers.js'

type ErrorBody = { error: { code: string; details?: { path?: string } } }

const send = async (url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: response.status, body: await response.json() }
}

const refusal = (answer: { status: number; body: unknown }) => ({ status: answer.status, code: (answer.body as ErrorBody).error?.code, path: (answer.body as ErrorBody).error?.details?.path })

describe.skipIf(!available)("host cluster on PostgreSQL — a message under a relayed request's key", () => {
  const cluster = useCluster()
  const serve = useServers()

  it("is refused 400 on every host, never answered the request's answer", { timeout: 90_000 }, async () => {
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 0, pollIntervalMs: 200 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await send(onA, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)

    // A request relayed now: its key is no message id, so a message under it is refused by the
    // route's schema on the owner and elsewhere alike.
    const pending = await send(onB, 'POST', '/v1/sessions/s/cancel', {})
    expect(pending.status).toBe(202)
    const { requestId } = pending.body as { requestId: string }
    for (;;) {
      const lookup = await send(onB, 'GET', `/v1/sessions/s/requests/${encodeURIComponent(requestId)}`)
      if ((lookup.body as { status?: string }).status !== 'pending') break
      await new Promise((resolve) => setImmediate(resolve))
    }
    for (const url of [onA, onB]) {
      expect(refusal(await send(url, 'POST', '/v1/sessions/s/messages', { clientMessageId: requestId, content: 'mine?' }))).toEqual({ status: 400, code: 'invalid-request', path: '/clientMessageId' })
    }

    // A request an older host keyed `request:<uuid>`, answered (a wake): a message under that id
    // is told the id is taken in this session, as one host says of an id its log has.
    const old = 'request:0b7e9a3c-2f4d-4c1e-9a55-3e1f6d2b8c40'
    await b!.store.mailbox.post('s', { messageId: old, kind: 'request', body: { method: 'POST', path: '/v1/sessions/s/wake', body: {} } })
    while ((await b!.store.mailbox.get('s', old))?.doneAt == null) await new Promise((resolve) => setImmediate(resolve))
    const message = await send(onB, 'POST', '/v1/sessions/s/messages', { clientMessageId: old, content: 'mine?' })
    expect(refusal(message)).toEqual({ status: 400, code: 'invalid-request', path: '/clientMessageId' })
    expect((message.body as ErrorBody & { error: { message: string } }).error.message).toContain('choose another clientMessageId')
    // The entry is still the request's: its answer unchanged, nothing admitted.
    expect((await b!.store.mailbox.get('s', old))?.kind).toBe('request')
    expect((await send(onB, 'GET', `/v1/sessions/s/messages/${encodeURIComponent(old)}`)).status).toBe(404)
  })
})
