// Property: whatever happens to the bytes of a recorded stream — cut anywhere, truncated, a byte
// replaced, a range deleted, garbage inserted, the connection reset or stalled — the agent's turn
// ends, either completed with a whole message or with a typed model error; nothing crashes and
// the key never reaches the log.
import { beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createAgent, ModelErrorCodes } from '@bosun/core'
import type { Tool } from '@bosun/core'
import { model, SECRET, warmUpFetch } from './testing/helpers.js'
import { events, fakeServer, fixture, frames, recut, stream } from './testing/server.js'

const FIXTURES = ['anthropic-text', 'anthropic-clear-thinking.1', 'anthropic-json-tool.1', 'anthropic-tool-no-args', 'anthropic-refusal', 'anthropic-message-delta-input-tokens']

const tools: Tool[] = ['json', 'updateIssueList'].map((name) => ({
  name,
  description: name,
  parameters: { type: 'object' },
  execute: () => 'ok',
}))

const corruption = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.string({ maxLength: 12 }) }),
  fc.record({ kind: fc.constant('reset' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('stall' as const), at: fc.nat() }),
)
type Corruption = typeof corruption extends fc.Arbitrary<infer T> ? T : never

function corrupt(bytes: Buffer, change: Corruption): Buffer {
  const at = change.kind === 'none' ? 0 : change.at % bytes.length
  switch (change.kind) {
    case 'truncate':
    case 'reset':
    case 'stall':
      return bytes.subarray(0, at)
    case 'replace':
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([change.byte]), bytes.subarray(at + 1)])
    case 'delete':
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + change.length)])
    case 'insert':
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(change.text), bytes.subarray(at)])
    default:
      return bytes
  }
}

const OK_ENDS = ['completed', 'max-tokens']

beforeAll(warmUpFetch)

describe('fuzzed streams through the agent', () => {
  it('always end the turn with a complete message or a typed model error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FIXTURES), fc.array(fc.nat(), { maxLength: 30 }), corruption, async (name, cuts, change) => {
        const server = await fakeServer()
        try {
          const bytes = corrupt(Buffer.from(frames(fixture(name)).join('')), change)
          const then = change.kind === 'reset' || change.kind === 'stall' ? change.kind : 'end'
          // A tool call leads to a second request: it gets a clean answer.
          server.reply(stream(recut(bytes, cuts.map((cut) => cut % Math.max(1, bytes.length))), { then }))
          server.reply(events([
            { type: 'message_start', message: { usage: { input_tokens: 1 } } },
            { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
            { type: 'message_stop' },
          ]))
          const agent = await createAgent({ model: model(server.baseURL, { idleTimeoutMs: 250 }), tools })
          agent.followup('go')
          await agent.whenIdle()
          const log = agent.session.events
          const ends = log.filter((event) => event.type === 'turn/end').map((event) => (event.data as { reason: { kind: string; error?: { code: string } } }).reason)
          expect(ends).toHaveLength(1)
          const [reason] = ends
          if (!OK_ENDS.includes(reason!.kind)) {
            expect(reason!.kind).toBe('error')
            expect(ModelErrorCodes).toContain(reason!.error!.code)
          } else {
            const messages = log.filter((event) => event.type === 'assistant/message').map((event) => event.data as { interrupted?: boolean })
            expect(messages.every((message) => message.interrupted !== true)).toBe(true)
          }
          expect(JSON.stringify(log)).not.toContain(SECRET)
          await agent.close()
        } finally {
          await server.close()
        }
      }),
      { numRuns: 100 },
    )
  }, 120_000)
})
