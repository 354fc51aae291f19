// llm/stream taps in a chain: each tap's context.open() re-sends through the taps inside it, never
// the ones outside it, so that a re-send by an outer wrapper is wrapped like the first attempt.
import { describe, expect, it } from 'vitest'
import { Stage, type StreamContext } from '../hooks.js'
import type { ModelChunk, ModelRequest } from '../model.js'
import { scripted } from '@bosun/adapter-scripted'
import { harness } from '../testing/harness.js'

type Stream = AsyncIterable<ModelChunk>

/** A tap that tags every text delta with `[name]`, so the output shows which taps a stream went through. */
const tagging = (name: string) => (stream: Stream): Stream =>
  (async function* () {
    for await (const chunk of stream) yield chunk.type === 'text-delta' ? { ...chunk, text: `${chunk.text}[${name}]` } : chunk
  })()

/** A tap that answers the first failure by re-sending through `context.open(request?)`. */
const reopening = (name: string, rewrite?: (request: ModelRequest) => ModelRequest) => (stream: Stream, context: StreamContext): Stream =>
  (async function* () {
    try {
      yield* stream
    } catch {
      context.session.append('x-test/reopened', { by: name })
      yield* context.open(rewrite?.(context.request))
    }
  })()

const text = (agent: { session: { events: readonly { type: string; data: unknown }[] } }) =>
  (agent.session.events.filter((e) => e.type === 'assistant/message').at(-1)!.data as { message: { content: { text: string }[] } }).message.content[0]!.text

describe('context.open() of each llm/stream tap', () => {
  it('goes through the taps inside it only: the outer tap’s re-send is wrapped by the inner ones, not by itself', async () => {
    const { agent, adapter } = await harness({ responses: [{ error: { status: 503 } }, { text: 'ok' }] })
    agent.hooks.llmStream.tap({ name: 'inner', stage: Stage.first }, tagging('inner'))
    agent.hooks.llmStream.tap({ name: 'middle', stage: Stage.normal }, reopening('middle'))
    agent.hooks.llmStream.tap({ name: 'outer', stage: Stage.late }, tagging('outer'))
    agent.followup('x')
    await agent.whenIdle()
    expect(adapter.requests).toBe(2)
    // Re-sent by `middle`: through `inner` (inside it), then out through `middle` and `outer` once.
    expect(text(agent)).toBe('ok[inner][outer]')
  })

  it('the innermost tap’s open() is the bare adapter stream', async () => {
    const { agent } = await harness({ responses: [{ error: { status: 503 } }, { text: 'ok' }] })
    agent.hooks.llmStream.tap({ name: 'first', stage: Stage.first }, reopening('first'))
    agent.hooks.llmStream.tap({ name: 'tag', stage: Stage.late }, tagging('tag'))
    agent.followup('x')
    await agent.whenIdle()
    expect(text(agent)).toBe('ok[tag]')
  })

  it('open(request) hands the new request to the inner taps, whose own open() re-sends that one', async () => {
    const adapter = scripted({ responses: [{ error: { status: 503 } }, { error: { status: 503 } }, { text: 'ok' }], record: true })
    const { agent } = await harness({ model: adapter, system: 'original' })
    const seen: string[] = []
    agent.hooks.llmStream.tap({ name: 'inner', stage: Stage.first }, (stream, context) => {
      seen.push(context.request.system)
      return reopening('inner')(stream, context)
    })
    agent.hooks.llmStream.tap({ name: 'outer', stage: Stage.late }, reopening('outer', (request) => ({ ...request, system: 'rewritten' })))
    agent.followup('x')
    await agent.whenIdle()
    // The first attempt fails; inner re-sends the same request, which fails too; outer re-sends its
    // rewrite, which goes through a new inner wrapping that sees the rewritten request.
    expect(seen).toEqual(['original', 'rewritten'])
    expect(adapter.recorded.map((request) => request.system)).toEqual(['original', 'original', 'rewritten'])
    expect(agent.session.events.filter((e) => e.type === 'x-test/reopened').map((e) => (e.data as { by: string }).by)).toEqual(['inner', 'outer'])
    expect(text(agent)).toBe('ok')
  })

  it('a tap that returns undefined passes the stream on; callback (tapAsync) taps take part', async () => {
    const { agent } = await harness({ responses: [{ error: { status: 503 } }, { text: 'ok' }] })
    agent.hooks.llmStream.tap({ name: 'observer', stage: Stage.first }, () => undefined as never)
    agent.hooks.llmStream.tapAsync({ name: 'callback', stage: Stage.early }, (stream, _context, done) => done(null, tagging('callback')(stream)))
    agent.hooks.llmStream.tap({ name: 'outer', stage: Stage.late }, reopening('outer'))
    agent.followup('x')
    await agent.whenIdle()
    expect(text(agent)).toBe('ok[callback]')
  })

  it('call and tap interceptors are told of each wrapping, re-sends included', async () => {
    const { agent } = await harness({ responses: [{ error: { status: 503 } }, { text: 'ok' }] })
    const told: string[] = []
    agent.hooks.llmStream.intercept({ call: () => void told.push('call'), tap: (tap) => void told.push(tap.name), result: () => void told.push('result') })
    agent.hooks.llmStream.tap({ name: 'inner', stage: Stage.first }, tagging('inner'))
    agent.hooks.llmStream.tap({ name: 'outer', stage: Stage.late }, reopening('outer'))
    agent.followup('x')
    await agent.whenIdle()
    expect(told).toEqual(['call', 'inner', 'outer', 'result', 'call', 'inner', 'result'])
  })

  it('an inner tap that throws while an outer one re-sends ends the call as an error naming the plugin', async () => {
    const { agent } = await harness({ responses: [{ error: { status: 503 } }, { text: 'never' }] })
    let calls = 0
    agent.hooks.llmStream.tap({ name: 'fragile', stage: Stage.first }, (stream) => {
      if (++calls === 2) throw new Error('cannot wrap twice')
      return stream
    })
    agent.hooks.llmStream.tap({ name: 'outer', stage: Stage.late }, reopening('outer'))
    agent.followup('x')
    await agent.whenIdle()
    const end = agent.session.events.at(-1)!
    expect(end.type).toBe('turn/end')
    expect(end.data).toMatchObject({ reason: { kind: 'error', error: { code: 'PLUGIN_HOOK_FAILED' } } })
    expect(JSON.stringify(end.data)).toContain('Plugin \\"fragile\\" failed in hook \\"llm/stream\\"')
  })

  it('a tap added after the call began does not shift what an earlier context’s open() goes through', async () => {
    const { agent } = await harness({ responses: [{ error: { status: 503 } }, { text: 'ok' }] })
    agent.hooks.llmStream.tap({ name: 'inner', stage: Stage.first }, tagging('inner'))
    agent.hooks.llmStream.tap({ name: 'outer', stage: Stage.late }, (stream, context) =>
      (async function* () {
        try {
          yield* stream
        } catch {
          // A plugin taps the hook now, at a stage before every other: the running call keeps its taps.
          agent.hooks.llmStream.tap({ name: 'newcomer', stage: Stage.first - 1 }, tagging('newcomer'))
          yield* context.open()
        }
      })(),
    )
    agent.followup('x')
    await agent.whenIdle()
    expect(text(agent)).toBe('ok[inner]')
  })
})
