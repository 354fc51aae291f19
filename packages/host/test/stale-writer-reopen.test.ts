import { copyFile, readdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { Host } from '../src/index.js'
import { json, makeHost, req, tempDir, waitFor } from './helpers.js'

// A session file replaced under a live session (a restore from a backup, an editor's save): the
// JSONL writer refuses with STALE_WRITER ("Reopen the session"). The host answered 409 "retry the
// request" but kept the stale session, so every retry got the same 409 until the idle sweep
// retired it (review R10). The host now lets the session go, and the retry reopens it from the file.

let dir: string
let cleanup: () => Promise<void>
let host: Host | undefined
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof makeHost>['store'] | undefined

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
})
afterEach(async () => {
  await host?.close().catch(() => {})
  await store?.close().catch(() => {})
  host = store = undefined
  await cleanup()
})

it('a send refused by a stale writer is answered 409, and its retry reopens the session and is taken', async () => {
  ;({ host, store } = makeHost(dir))
  await req(host, 'POST', '/v1/sessions', { id: 's' })
  expect((await req(host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'c-1', content: 'one' })).status).toBe(202)
  await waitFor(async () => (await json(req(host!, 'GET', '/v1/sessions/s'))).status === 'idle', 15_000, 'the first turn ran')

  // Replace the session file with a copy of itself: same bytes, a new file; the writer's has no name left.
  const file = (await readdir(dir)).find((name) => name.startsWith('s') && name.endsWith('.jsonl'))!
  await copyFile(join(dir, file), join(dir, `${file}.copy`))
  await rename(join(dir, `${file}.copy`), join(dir, file))

  const refused = await req(host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'c-2', content: 'two' })
  expect(refused.status).toBe(409)
  const retry = await req(host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'c-2', content: 'two' })
  expect(retry.status).toBe(202)
  expect(await json(retry)).toMatchObject({ messageId: 'c-2', duplicate: false, durable: true })
})
