// What the user sees of an Anthropic refusal: `bosun run` against a real HTTP server replaying
// Anthropic's recorded refusal stream (stop_reason "refusal" with stop_details.explanation).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'

beforeAll(requireBuild)

const EXPLANATION = "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy."
// /work/shared/fixtures/providers/anthropic-refusal.chunks.txt, as Anthropic sends it.
const RECORDED = [
  { type: 'message_start', message: { model: 'claude-fable-5', id: 'msg_01RefusalStreamAbcdefghijk', type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 18, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } },
  { type: 'ping' },
  { type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null, stop_details: { type: 'refusal', category: 'cyber', explanation: EXPLANATION, recommended_model: 'claude-fable-5' } }, usage: { input_tokens: 18, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 } },
  { type: 'message_stop' },
]

const servers: { close(): void }[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

/** A local Anthropic stand-in answering every request with the recorded refusal. */
async function refusingServer(): Promise<string> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(RECORDED.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''))
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('bosun run, refused by Anthropic', () => {
  it('prints the explanation Anthropic gave as the answer, then the refusal warning; exit 0', async ({ dir, expect }) => {
    const baseURL = await refusingServer()
    await writeProject(dir, { model: { adapter: 'anthropic', options: { baseURL, model: 'claude-fable-5', apiKeyEnv: 'REFUSAL_TEST_KEY' } } })
    const result = await bosun(['run', 'scan my neighbour’s network'], { cwd: dir, env: { REFUSAL_TEST_KEY: 'sk-ant-refusal-test' } })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${EXPLANATION}\n`)
    expect(result.stderr).toContain('warning: the provider stopped the answer (content-filter: a refusal or its content filter); what it wrote is above')
  })
})
