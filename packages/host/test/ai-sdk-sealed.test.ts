import { afterEach, describe, expect, it } from 'vitest'
import { createAgent, sealIdleSessions, type Plugin } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen, type RunningServer } from '../src/index.js'
import { SLICE_EVENTS } from '../src/log-prefix.js'
import { foldStats } from '../src/stream.js'
import { perTest, stepGate, waitFor } from './helpers.js'
import { countPageDecodes, restorePageDecodes } from './page-decodes.js'

// The AI SDK chat POST to a session whose log the core's idle seal has paged (sealed log pages):
// the turn stream's inbox fold must not read the sealed log from seq 0 — every page decoded on the
// host's event loop, in one go — and must send the same bytes as before the seal.

const state = perTest()
afterEach(restorePageDecodes)

async function serve(responses: () => ScriptedResponse[], plugins: Plugin[] = []): Promise<RunningServer> {
  // Closed last (the list closes in reverse): a store left open keeps its journal file open.
  const store = jsonlStore({ dir: state.dir })
  state.closing.push(store)
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: responses() }), store, sessionId, plugins }),
    limits: { keepAliveMs: 200 },
  })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  state.closing.push(server)
  return server
}

const chat = (server: RunningServer, messageId: string, text: string) =>
  fetch(`${server.url}/v1/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 's', messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }] }) })

/** The whole UI message stream of a chat POST, as bytes (it closes after `[DONE]`). */
async function turnText(server: RunningServer, messageId: string, text: string): Promise<string> {
  return bodyOf(await chat(server, messageId, text))
}

/**
 * The stream's frames, as bytes, without keep-alive comments: those say only that the stream
 * waited (here at most for the store to take a turn's end before its finish, which a loaded
 * machine's fsync may stretch past `keepAliveMs`), not what it sent.
 */
async function bodyOf(response: Response): Promise<string> {
  expect(response.status).toBe(200)
  const body = await response.text()
  expect(body.endsWith('data: [DONE]\n\n')).toBe(true)
  return body.replaceAll(': keep-alive\n\n', '')
}

describe('host: the AI SDK chat stream of a sealed session', () => {
  it('a chat POST folds nothing of the sealed log and decodes no page; a repeated id folds by seq, a slice at a time; same bytes', async () => {
    // One long answer in one-character chunks: a log of a few slices, sealed into many pages.
    const long = 'x'.repeat(3 * SLICE_EVENTS)
    const server = await serve(() => [{ text: long, chunkSize: 1 }, { text: 'second' }])
    const first = await turnText(server, 'u1', 'one')
    expect(first.split('text-delta').length - 1).toBe(long.length)
    const second = await turnText(server, 'u2', 'two')
    expect(second).toContain('"delta":"second"')
    // A repeated message id streams the turn that claimed it again, from its admission: before a seal…
    expect(await turnText(server, 'u2', 'two')).toBe(second)

    expect(await sealIdleSessions()).toBeGreaterThan(0)
    const pages = countPageDecodes()
    const before = { ...foldStats }
    // A new message: the stream folds on from the queues taken just before the admission.
    const third = await turnText(server, 'u3', 'three')
    expect(third).toContain('"type":"start","messageId":"bosun-turn-3"')
    expect({ inflates: pages.count, folded: foldStats.folded - before.folded }).toEqual({ inflates: 0, folded: 0 })

    // …and after one: the admission is far back, so the fold runs from seq 0 to it, read by seq
    // and a slice per macrotask (the log before it is the first turn's 3,000+ events).
    expect(await sealIdleSessions()).toBeGreaterThan(0)
    const again = { ...foldStats }
    expect(await turnText(server, 'u2', 'two')).toBe(second)
    const folded = foldStats.folded - again.folded
    expect(folded).toBeGreaterThan(3 * SLICE_EVENTS)
    expect(foldStats.yields - again.yields).toBe(Math.ceil(folded / SLICE_EVENTS) - 1)
    expect(pages.count).toBeGreaterThan(0)
  })

  it('a chat stream whose turn waits behind a long one reads on through it; a repeated id after a seal sends the same bytes', async () => {
    const gate = stepGate()
    const long = 'x'.repeat(3 * SLICE_EVENTS)
    const server = await serve(() => [{ text: long, chunkSize: 1 }, { text: 'second' }], [gate.plugin])
    const first = await chat(server, 'u1', 'one')
    await waitFor(() => gate.waiting === 1, 15_000, 'turn 1 to be held at its step')
    // Queued behind turn 1: its stream reads turn 1's 3,000+ events, which say nothing to it.
    const second = chat(server, 'u2', 'two')
    await waitFor(async () => (await (await fetch(`${server.url}/v1/sessions/s`)).json() as { inbox: { 'next-turn': unknown[] } }).inbox['next-turn'].length === 1, 15_000, 'u2 to be queued')
    gate.open()
    expect(await bodyOf(first)).toContain('"type":"start","messageId":"bosun-turn-1"')
    const response = await second
    expect(response.status).toBe(200)
    const raw = await response.text()
    // Read on to its turn, not waited for a new event: no keep-alive before the turn's parts (one
    // may come after them, while the store takes the turn's end before the finish).
    const lastPart = raw.lastIndexOf('text-delta')
    expect(raw.slice(0, lastPart)).not.toContain('keep-alive')
    const text = raw.replaceAll(': keep-alive\n\n', '')
    expect(text.split('text-delta').length - 1).toBe(1)
    expect(text).toContain('"type":"start","messageId":"bosun-turn-2"')

    // The same message id again, after a seal: the fold from seq 0 and the read from its admission
    // (turn 1 between them), by seq, a slice at a time; the same bytes.
    expect(await sealIdleSessions()).toBeGreaterThan(0)
    const before = { ...foldStats }
    expect(await turnText(server, 'u2', 'two')).toBe(text)
    expect(foldStats.folded - before.folded).toBeGreaterThan(0)
  })
})
