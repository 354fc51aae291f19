// A request another host relayed through the mailbox whose run on the owner throws — outside the
// route, so no error answer of the route's (those are stored like any answer) — is answered with
// the failure: 500 internal-error stored on the entry, which is done. The sender on the other host
// (POST /messages, a queue operation or cancel, the AI SDK chat) gets it at once instead of
// waiting out relayWaitMs for `pending` and then a lookup that stays pending; the entry is not run
// again on every wake-up and poll; the session's later mail is carried out instead of waiting
// behind it. Real PostgreSQL, two hosts served on 127.0.0.1; the owner's app made to throw on
// chosen relayed requests.
import { describe, expect, it } from 'vitest'
import { admissionsOf, available, onRelayed, useCluster, useServers, type ClusterHost } from './cluster-helpers.js'

type ErrorBody = { error: { code: string; message: string; details?: { requestId?: string } } }

/** Makes `h`'s own app throw on the relayed requests `poisoned` picks (as a request failing outside its route would), counting them. */
function poison(h: ClusterHost, poisoned: (path: string, body: string) => boolean): Map<string, number> {
  const thrown = new Map<string, number>()
  onRelayed(h, async (request) => {
    const body = await request.clone().text()
    const key = `${request.method} ${new URL(request.url).pathname} ${body}`
    if (poisoned(new URL(request.url).pathname, body)) {
      thrown.set(key, (thrown.get(key) ?? 0) + 1)
      throw new Error('the run failed outside the route')
    }
    return undefined
  })
  return thrown
}

describe.skipIf(!available)('host cluster on PostgreSQL — a relayed request whose run throws on the owner', () => {
  const cluster = useCluster()
  const serve = useServers()
  const send = (url: string, method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

  it("B's sender gets 500 at once, the entry is done and not run again, and the mail after it is carried out", { timeout: 90_000 }, async () => {
    // A wait long enough never to end on a loaded machine: an answer is the owner's, never `pending`.
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 30_000, pollIntervalMs: 200 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await send(onA, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    const thrown = poison(a!, (path, body) => body.includes('"poison-') || path.endsWith('/cancel'))

    const message = await send(onB, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'poison-1', content: 'lost' })
    const refused = (await message.json()) as ErrorBody
    expect(message.status, JSON.stringify(refused)).toBe(500)
    expect(refused.error.code).toBe('internal-error')
    expect(refused.error.message).toContain('under the same clientMessageId')
    const entry = await b!.store.mailbox.get('s', 'poison-1')
    expect(entry?.doneAt).not.toBeNull()
    expect(entry?.deliveredSeq).toBeNull()
    // Its lookup on any host says so too.
    const lookup = await send(onB, 'GET', '/v1/sessions/s/messages/poison-1')
    expect({ status: lookup.status, body: await lookup.json() }).toEqual({ status: 500, body: refused })

    // A queue operation or cancel: the same, its lookup by request id too.
    const cancel = await send(onB, 'POST', '/v1/sessions/s/cancel', {})
    const canceled = (await cancel.json()) as ErrorBody
    expect({ status: cancel.status, code: canceled.error.code }).toEqual({ status: 500, code: 'internal-error' })
    const requestId = canceled.error.details!.requestId!
    const request = await send(onB, 'GET', `/v1/sessions/s/requests/${encodeURIComponent(requestId)}`)
    expect({ status: request.status, body: await request.json() }).toEqual({ status: 500, body: canceled })

    // The AI SDK chat answers the failure instead of a stream waiting for a turn that never comes.
    const chat = await send(onB, 'POST', '/v1/ai-sdk/chat', { id: 's', messages: [{ id: 'poison-chat', role: 'user', parts: [{ type: 'text', text: 'lost too' }] }] })
    expect({ status: chat.status, code: ((await chat.json()) as ErrorBody).error.code }).toEqual({ status: 500, code: 'internal-error' })

    // Mail after them is carried out (it waited behind the first, run again on every poll, before).
    const good = await send(onB, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm-2', content: 'hello' })
    const receipt = (await good.json()) as { accepted: boolean; status: string }
    expect(good.status, JSON.stringify(receipt)).toBe(202)
    expect(receipt.status).not.toBe('pending')
    const events = (await b!.store.read('s'))!.events
    expect(admissionsOf(events, 'm-2')).toBe(1)
    expect(admissionsOf(events, 'poison-1')).toBe(0)
    // Each failed run ran once: answered, not retried by the polls that came since.
    expect([...thrown.values()]).toEqual([1, 1, 1])
  })
})
