// What the user sees of an Anthropic refusal: `bosun run` against a real HTTP server replaying
// Anthropic's recorded refusal stream (stop_reason "refusal" with stop_details.explanation).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeAll, describe } from 'vitest'
import { CLOCK_TOOL, bosun, it, requireBuild, writeProject } from './helpers.js'

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

// The same refusal after the model wrote a line and started a tool call (the loop drops the call).
const AFTER_A_CALL = [
  RECORDED[0]!,
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me check the network.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01Refused', name: 'clock', input: {} } },
  { type: 'content_block_stop', index: 1 },
  ...RECORDED.slice(2),
]

/** A local Anthropic stand-in answering every request with `events` (the recorded refusal). */
async function refusingServer(events: readonly { type: string }[] = RECORDED): Promise<string> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''))
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

  it('keeps the explanation a blank line below text the model wrote before a tool call it dropped, in run and chat', async ({ dir, expect }) => {
    const baseURL = await refusingServer(AFTER_A_CALL)
    const model = { adapter: 'anthropic', options: { baseURL, model: 'claude-fable-5', apiKeyEnv: 'REFUSAL_TEST_KEY' } }
    await writeProject(dir, { model, tools: ['./tools/clock.mjs'] }, { 'tools/clock.mjs': CLOCK_TOOL })
    const env = { REFUSAL_TEST_KEY: 'sk-ant-refusal-test' }
    const result = await bosun(['run', 'scan my neighbour’s network'], { cwd: dir, env })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`Let me check the network.\n\n${EXPLANATION}\n`)
    expect(result.stderr).not.toContain('clock')
    const chat = await bosun(['chat', '--session', 'refused'], { cwd: dir, env, input: 'scan my neighbour’s network\n' })
    expect(chat.code).toBe(0)
    expect(chat.stdout).toContain(`› scan my neighbour’s network\nLet me check the network.\n\n${EXPLANATION}\n  ⚠ the provider stopped the answer`)
  })
})
