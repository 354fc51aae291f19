import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

/** The built OpenAI-compatible adapter, named by a module in the project (no install needed). */
export const OPENAI_ADAPTER = `export { default } from ${JSON.stringify(pathToFileURL(resolve(import.meta.dirname, '../../adapters/openai/dist/index.js')).href)}\n`

/**
 * The `data:` payloads of a provider stream recorded from the real API, as the OpenAI adapter
 * keeps them (packages/adapters/openai/fixtures, with their README and licence).
 */
export function recordedPayloads(file: string): string[] {
  const text = readFileSync(resolve(import.meta.dirname, '../../adapters/openai/fixtures', file), 'utf8')
  return text.split('\n').filter((line) => line.trim() !== '')
}

/** The answer a recorded Chat Completions stream spells: its `delta.content` pieces, joined. */
export function recordedText(payloads: readonly string[]): string {
  return payloads
    .map((line) => (JSON.parse(line) as { choices?: { delta?: { content?: string | null } }[] }).choices?.[0]?.delta?.content ?? '')
    .join('')
}

/** What one request to the replaying server is answered with: SSE payloads, in order (`[DONE]` is added when `done`). */
export interface Reply {
  payloads: readonly string[]
  done: boolean
}

/**
 * A local Chat Completions server: the n-th POST to /v1/chat/completions gets `replies[n]` (the
 * last one again after that) as a 200 event stream. An error payload in a reply is how OpenAI,
 * vLLM and llama.cpp report a failure after the 200, in the middle of the answer.
 */
export async function replayServer(replies: readonly Reply[]): Promise<{ baseURL: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0
  const server: Server = createServer((req, res) => {
    req.resume()
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end()
    const reply = replies[Math.min(count++, replies.length - 1)]!
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const payload of reply.payloads) res.write(`data: ${payload}\n\n`)
    res.end(reply.done ? 'data: [DONE]\n\n' : '')
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => count,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}
