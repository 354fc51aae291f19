import { createAgent, ModelErrorCodes, type Tool, type TurnEndReason } from '@bosun/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openai } from './index.js'
import { cut, fixture, raw, sseBytes, startServer, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const sources = ['openai-text', 'deepseek-text', 'deepseek-reasoning', 'deepseek-tool-call', 'xai-text', 'xai-tool-call'].map((name) => ({
  name,
  bytes: sseBytes(fixture(name)),
}))

type Corruption =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; positions: number[]; mask: number }
  | { kind: 'drop'; lines: number[] }

const corruption: fc.Arbitrary<Corruption> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), positions: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('drop' as const), lines: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }) }),
)

function corrupt(bytes: Buffer, how: Corruption): Buffer {
  switch (how.kind) {
    case 'none':
      return bytes
    case 'truncate':
      return bytes.subarray(0, how.at % bytes.length)
    case 'flip': {
      const copy = Buffer.from(bytes)
      for (const position of how.positions) copy[position % copy.length]! ^= how.mask
      return copy
    }
    case 'drop': {
      const lines = bytes.toString('utf8').split('\n')
      const dropped = new Set(how.lines.map((n) => n % lines.length))
      return Buffer.from(lines.filter((_, i) => !dropped.has(i)).join('\n'), 'utf8')
    }
  }
}

const weather: Tool = {
  name: 'weather',
  description: 'The weather at a location.',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  execute: async () => 'Sunny',
}

describe('fuzz: re-chunked and corrupted recorded streams', () => {
  it('always end the turn with a complete message or a typed model error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...sources),
        corruption,
        fc.array(fc.nat(), { maxLength: 24 }),
        async (source, how, cuts) => {
          server.reset()
          const body = corrupt(source.bytes, how)
          server.reply(raw(cut(body, cuts.map((n) => n % Math.max(1, body.length)))))
          const agent = await createAgent({
            model: openai({ baseURL: server.url, model: 'fuzz', idleTimeoutMs: 5000 }),
            tools: [weather],
          })
          agent.followup('go')
          await agent.whenIdle()
          const ends = agent.session.events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: TurnEndReason }).reason)
          expect(ends).toHaveLength(1)
          const reason = ends[0]!
          if (reason.kind === 'error') {
            expect(ModelErrorCodes as readonly string[]).toContain(reason.error.code)
          } else {
            expect(['completed', 'max-tokens']).toContain(reason.kind)
            expect(agent.session.events.some((e) => e.type === 'assistant/message')).toBe(true)
          }
          if (how.kind === 'none') expect(reason.kind).not.toBe('error')
        },
      ),
      { numRuns: 100 },
    )
  })
})
