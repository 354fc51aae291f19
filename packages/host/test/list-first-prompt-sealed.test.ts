// The host stream's frame of a live session whose log the core's idle seal has paged (review R3):
// its first prompt was folded from seq 0 to the end — every sealed page decoded on the host's event
// loop, in one go (118 pages, ~50 ms, for a first answer of 30,000 chunks). The prompt is final
// once a user's message was delivered (a turn's first events): the fold stops there, so only the
// first page is read, whatever the log's length.
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent, sealIdleSessions } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createClient, type HostStreamFrame } from '../src/client.js'
import { createHost, listen } from '../src/index.js'
import { perTest, waitFor } from './helpers.js'
import { countPageDecodes, restorePageDecodes } from './page-decodes.js'

const state = perTest()
afterEach(restorePageDecodes)

describe('a sealed live session\'s frame in the host stream', () => {
  it('reads only the log\'s first page for its first prompt, and the list none', async () => {
    const store = jsonlStore({ dir: state.dir })
    state.closing.push(store)
    // A first answer of 3,000 one-character chunks: a log of ~12 sealed pages.
    const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'x'.repeat(3000), chunkSize: 1 }] }), store, sessionId }), limits: { keepAliveMs: 200 } })
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    state.closing.push(host, server)
    const client = createClient({ baseUrl: server.url })
    await client.createSession('long')
    await client.send('long', { content: 'the first prompt' }, { waitDurable: true })
    await waitFor(async () => (await client.getSession('long')).status === 'idle' && (await client.getSession('long')).lastSeq > 3000, 60_000)
    const sealedAt = (await client.getSession('long')).lastSeq
    expect(await sealIdleSessions()).toBeGreaterThan(0)

    const pages = countPageDecodes()
    // The list: the store's entry is of exactly this log once its batches are written, and gives it.
    await waitFor(async () => (await store.list()).find((s) => s.id === 'long')?.length === sealedAt + 1, 60_000)
    expect((await client.listSessions()).find((s) => s.id === 'long')).toMatchObject({ loaded: true, firstPrompt: 'the first prompt' })
    expect(pages.count).toBe(0)

    const controller = new AbortController()
    const frames: HostStreamFrame[] = []
    for await (const frame of client.hostStream({ signal: controller.signal })) {
      frames.push(frame)
      if (frame.event === 'hello') await client.send('long', { content: 'a second message' })
      if (frame.event === 'session.status' && frame.data.id === 'long' && frame.data.status === 'idle' && frame.data.lastSeq > sealedAt + 3) controller.abort()
    }
    const statuses = frames.flatMap((f) => (f.event === 'session.status' && f.data.id === 'long' ? [f.data] : []))
    expect(statuses.length).toBeGreaterThan(0)
    expect(statuses.every((s) => s.firstPrompt === 'the first prompt')).toBe(true)
    // Page 0 at most (none when the shared page cache still holds it); from seq 0 to the end it was 12.
    expect(pages.count).toBeLessThanOrEqual(1)
  })
})
