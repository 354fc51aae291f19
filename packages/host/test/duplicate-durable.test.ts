import { afterEach, beforeEach, expect, it } from 'vitest'
import type { Host } from '../src/index.js'
import { json, makeHost, req, tempDir, waitFor } from './helpers.js'

// A duplicate send's receipt says `durable: true` once the message is durable — also when the host
// never waited for it itself: the loop flushes before each model request (R9's note: a retried
// post answered `durable: false` for a message flushed long before).

let dir: string
let cleanup: () => Promise<void>
let host: Host | undefined
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof makeHost>['store'] | undefined

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
})
afterEach(async () => {
  await host?.close()
  await store?.close()
  host = store = undefined
  await cleanup()
})

it('a duplicate of a message the loop has flushed answers durable: true', async () => {
  ;({ host, store } = makeHost(dir))
  await req(host, 'POST', '/v1/sessions', { id: 's' })
  const first = await json(req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'c-1', content: 'hello' }))
  expect(first).toMatchObject({ duplicate: false })
  // Its turn runs: the flush before the model request makes the admission durable.
  await waitFor(async () => {
    const snap = await json(req(host!, 'GET', '/v1/sessions/s'))
    return snap.status === 'idle' && snap.inbox['next-turn'].length === 0
  }, 15_000, 'the turn for c-1 ran')
  const retry = await json(req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'c-1', content: 'hello' }))
  expect(retry).toMatchObject({ messageId: 'c-1', duplicate: true, seq: first.seq, durable: true })
})
