import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, HOST_ERROR_STATUS, type Host } from '../src/index.js'
import { holdTool, json, req, tempDir, waitFor } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
let host: Host
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof jsonlStore>
let hold: ReturnType<typeof holdTool>

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  hold = holdTool()
  store = jsonlStore({ dir })
  host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({
      model: scripted({ responses: [{ toolCalls: [{ name: 'hold' }] }, { text: 'done' }] }),
      store, sessionId, tools: [hold.tool],
    }),
    limits: { keepAliveMs: 200 },
  })
})
afterEach(async () => {
  hold.release()
  await host.close()
  await store.close()
  await cleanup()
})

const held = (id: string) => waitFor(async () => (await json(req(host, 'GET', `/v1/sessions/${id}/events?limit=1000`))).events.some((e: { type: string }) => e.type === 'tool/call'), 15_000, 'the turn held in its tool')

describe('SPEC §10 error codes', () => {
  it('every code SPEC §10 lists has its status', () => {
    expect(HOST_ERROR_STATUS).toMatchObject({
      'session-not-found': 404, 'message-not-found': 404, 'queue-item-not-found': 404, 'session-locked': 409,
      'steer-unavailable': 409, 'version-mismatch': 412, 'replay-unavailable': 409, 'invalid-request': 400,
      'unsupported-media-type': 415, 'payload-too-large': 413, 'not-authorized': 401, 'forbidden-origin': 403,
    })
  })

  it('replay-unavailable: a resume cursor beyond the log (events the client saw are gone) is refused, on the stream and the events page', async () => {
    await req(host, 'POST', '/v1/sessions', { id: 'r' })
    await req(host, 'POST', '/v1/sessions/r/messages', { clientMessageId: 'go', content: 'go' })
    await held('r')
    hold.release()
    await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/r'))).status === 'idle')
    const { lastSeq } = await json(req(host, 'GET', '/v1/sessions/r'))
    // At the end of the log a resume is fine (nothing to replay yet) …
    const ok = await req(host, 'GET', '/v1/sessions/r/stream', undefined, { 'last-event-id': String(lastSeq) })
    expect(ok.status).toBe(200)
    await ok.body!.cancel()
    // … beyond it, the client holds seqs this log no longer has.
    for (const [path, headers] of [
      ['/v1/sessions/r/stream', { 'last-event-id': String(lastSeq + 3) }],
      [`/v1/sessions/r/stream?after=${lastSeq + 1}`, {}],
      [`/v1/sessions/r/events?after=${lastSeq + 1}`, {}],
    ] as const) {
      const refused = await req(host, 'GET', path, undefined, headers)
      expect(refused.status, path).toBe(409)
      expect((await json(refused)).error, path).toMatchObject({ code: 'replay-unavailable', details: { lastSeq } })
    }
  })

  it('version-mismatch: a queue operation with a stale If-Match is refused and changes nothing', async () => {
    await req(host, 'POST', '/v1/sessions', { id: 'v' })
    await req(host, 'POST', '/v1/sessions/v/messages', { clientMessageId: 'go', content: 'go' })
    await held('v')
    for (const m of ['q1', 'q2']) await req(host, 'POST', '/v1/sessions/v/messages', { clientMessageId: m, content: m })
    const snapshot = await req(host, 'GET', '/v1/sessions/v')
    const { inboxVersion } = await json(snapshot.clone())
    expect(snapshot.headers.get('etag')).toBe(`"${inboxVersion}"`)

    const edited = await req(host, 'PATCH', '/v1/sessions/v/inbox/q1', { content: 'q1 edited' }, { 'if-match': `"${inboxVersion}"` })
    expect(edited.status).toBe(200)
    // The edit changed the queue: the old version is stale for every queue operation.
    for (const [method, path, body] of [
      ['DELETE', '/v1/sessions/v/inbox/q2', undefined],
      ['PATCH', '/v1/sessions/v/inbox/q2', { content: 'x' }],
      ['POST', '/v1/sessions/v/inbox/q2/promote', {}],
      ['PUT', '/v1/sessions/v/inbox/order', { order: ['q2', 'q1'] }],
    ] as const) {
      const stale = await req(host, method, path, body, { 'if-match': `"${inboxVersion}"` })
      expect(stale.status, `${method} ${path}`).toBe(412)
      expect((await json(stale)).error, `${method} ${path}`).toMatchObject({ code: 'version-mismatch', details: { expected: inboxVersion } })
    }
    const after = await json(req(host, 'GET', '/v1/sessions/v'))
    expect(after.inbox['next-turn'].map((m: { id: string }) => m.id)).toEqual(['q1', 'q2'])
    expect(after.inboxVersion).toBeGreaterThan(inboxVersion)
    const current = await req(host, 'PUT', '/v1/sessions/v/inbox/order', { order: ['q2', 'q1'] }, { 'if-match': `W/"${after.inboxVersion}"` })
    expect(current.status).toBe(200)
    const malformed = await req(host, 'DELETE', '/v1/sessions/v/inbox/q2', undefined, { 'if-match': '"latest"' })
    expect(malformed.status).toBe(400)
    expect((await json(malformed)).error).toMatchObject({ code: 'invalid-request', details: { path: 'If-Match' } })
  })
})
