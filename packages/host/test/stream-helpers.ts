// What the stream limit tests share: a served host, console.error spied on (the host's log), and
// requests from a real client (fetch on 127.0.0.1).
import { afterEach, beforeEach, expect, vi, type MockInstance } from 'vitest'
import { listen, type Host, type HostLimits, type RunningServer } from '../src/index.js'
import { makeHost, perTest, SseReader, stepGate } from './helpers.js'

/** console.error, spied on for each test of the file: `lines(text)` counts the host's log lines that hold `text`. */
export function hostLog(): { lines(text: string): string[] } {
  let logged: MockInstance<typeof console.error>
  beforeEach(() => {
    logged = vi.spyOn(console, 'error').mockImplementation(() => {})
  })
  afterEach(() => {
    logged.mockRestore()
  })
  return { lines: (text) => logged.mock.calls.map((call) => String(call[0])).filter((line) => line.includes(text)) }
}

/** A host on 127.0.0.1 (a free port) over a JSONL store in the test's dir, its steps held on `gate` until opened; closed after the test. */
export async function serveHost(t: ReturnType<typeof perTest>, limits: HostLimits): Promise<{ host: Host; server: RunningServer; gate: ReturnType<typeof stepGate>; url: string }> {
  const gate = stepGate()
  const { host, store } = makeHost(t.dir, () => [{ text: 'answered' }], { limits }, [gate.plugin])
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  // Closed in reverse: the server, the host, then the store (left open, its journal file stays open).
  t.closing.push(store, host, { close: async () => { gate.open(); await server.close() } })
  return { host, server, gate, url: server.url }
}

export const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(signal ? { signal } : {}) })

/** An AI SDK chat body: one user message to the chat `id`. */
export const chat = (id: string) => ({ id, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] })

/** A stream answered 200 whose first frame came. */
export async function opened(response: Response): Promise<SseReader> {
  expect(response.status).toBe(200)
  const reader = new SseReader(response)
  await reader.until((frames) => frames.length > 0)
  return reader
}
