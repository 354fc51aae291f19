// Tool execution within a step: order, parallelism, error results, contexts, continuation and
// concludesTurn, abort (SPEC §4; seed 003 §9; seed 000 "复杂场景二/五").
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import type { ModelChunk } from '../model.js'
import { createUserMessage } from '../session/messages.js'
import { memoryStore } from '../store/memory.js'
import { chunkAdapter } from '../testing/adapters.js'
import { settle } from '../testing/agent-probes.js'
import { gate, harness } from '../testing/harness.js'
import { blockingTool, tool } from '../testing/tools.js'
import type { ToolContext } from '../tools/types.js'

/** The chunks of one tool call with raw (possibly invalid) arguments. */
const call = (index: number, id: string, name: string, args: string): ModelChunk[] => [
  { type: 'tool-call-delta', index, id, name },
  { type: 'tool-call-delta', index, argumentsDelta: args },
]

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('order and parallelism', () => {
  it('commits results in call order even when a later call settles first', async () => {
    const gates = { a: gate<string>(), b: gate<string>() }
    const slow = tool('slow', ({ key }: { key: 'a' | 'b' }) => gates[key].promise)
    const { agent, timeline } = await harness({
      tools: [slow],
      responses: [{ toolCalls: [{ name: 'slow', args: { key: 'a' } }, { name: 'slow', args: { key: 'b' } }] }, { text: 'both done' }],
    })
    const bothStarted = new Promise<void>((resolve) => {
      let n = 0
      agent.session.subscribe((e) => e.type === 'tool/call' && ++n === 2 && resolve())
    })
    agent.followup('go')
    await bothStarted
    gates.b.open('result b')
    await settle()
    expect(agent.session.events.filter((e) => e.type === 'tool/result')).toHaveLength(0)
    gates.a.open('result a')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      assistant/message slow({"key":"a"}) slow({"key":"b"})
      tool/call slow {"key":"a"}
      tool/call slow {"key":"b"}
      tool/result slow "result a"
      tool/result slow "result b"
      step/end 1.1 tool-calls
      step/start 1.2
      assistant/message "both done"
      step/end 1.2 stop
      turn/end 1 completed"
    `)
  })

  it('runs parallel-safe calls concurrently, and a parallel: false tool alone', async () => {
    const log: string[] = []
    const body = (label: string) => async () => {
      log.push(`start ${label}`)
      await tick()
      log.push(`end ${label}`)
      return label
    }
    const par = tool('par', ({ n }: { n: number }) => body(`par${n}`)())
    const solo = tool('solo', body('solo'), { parallel: false })
    const { agent } = await harness({
      tools: [par, solo],
      responses: [
        {
          toolCalls: [
            { name: 'par', args: { n: 1 } },
            { name: 'par', args: { n: 2 } },
            { name: 'solo' },
            { name: 'par', args: { n: 3 } },
            { name: 'par', args: { n: 4 } },
          ],
        },
      ],
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(log).toEqual([
      'start par1',
      'start par2',
      'end par1',
      'end par2',
      'start solo',
      'end solo',
      'start par3',
      'start par4',
      'end par3',
      'end par4',
    ])
  })

  it('never runs more than maxParallelTools calls at once', async () => {
    let active = 0
    let peak = 0
    const releases = Array.from({ length: 5 }, () => gate())
    const startedIds: number[] = []
    const work = tool('work', async ({ i }: { i: number }) => {
      active++
      peak = Math.max(peak, active)
      startedIds.push(i)
      await releases[i]!.promise
      active--
      return `w${i}`
    })
    const { agent, timeline } = await harness({
      tools: [work],
      maxParallelTools: 2,
      responses: [{ toolCalls: [0, 1, 2, 3, 4].map((i) => ({ name: 'work', args: { i } })) }, { text: 'ok' }],
    })
    agent.followup('go')
    await settle()
    expect(startedIds).toEqual([0, 1])
    releases[1]!.open()
    await settle()
    expect(startedIds).toEqual([0, 1, 2])
    for (const release of releases) release.open()
    await agent.whenIdle()
    expect(peak).toBe(2)
    expect(startedIds).toEqual([0, 1, 2, 3, 4])
    expect(timeline().split('\n').filter((l) => l.startsWith('tool/result'))).toEqual(
      [0, 1, 2, 3, 4].map((i) => `tool/result work "w${i}"`),
    )
  })

  it('passes each call its context: callId, the turn signal, turn and step', async () => {
    const contexts: { callId: string; turn: number; step: number; signal: boolean; aborted: boolean }[] = []
    const probe = tool('probe', (_args, context: ToolContext) => {
      contexts.push({
        callId: context.callId,
        turn: context.turn,
        step: context.step,
        signal: context.signal instanceof AbortSignal,
        aborted: context.signal.aborted,
      })
      return 'ok'
    })
    const { agent } = await harness({
      tools: [probe],
      responses: [{ toolCalls: [{ name: 'probe' }, { name: 'probe', id: 'mine' }] }, { toolCalls: [{ name: 'probe' }] }, { text: 'x' }],
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(contexts).toEqual([
      { callId: 'call_1_0', turn: 1, step: 1, signal: true, aborted: false },
      { callId: 'mine', turn: 1, step: 1, signal: true, aborted: false },
      { callId: 'call_2_0', turn: 1, step: 2, signal: true, aborted: false },
    ])
  })
})

describe('results', () => {
  it('turns invalid JSON, schema-invalid arguments, an unknown tool, a throwing tool and a tool returning nothing into error results the model sees; the turn continues', async () => {
    const echo = tool('echo', ({ text }: { text: string }) => `echo ${text}`, {
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    })
    const boom = tool('boom', () => {
      throw new Error('disk on fire')
    })
    const nothing = tool('nothing', () => undefined as never)
    const model = chunkAdapter([
      ...call(0, 'c-json', 'echo', '{"text": '),
      ...call(1, 'c-schema', 'echo', '{"text": 5}'),
      ...call(2, 'c-unknown', 'nope', '{}'),
      ...call(3, 'c-throw', 'boom', '{}'),
      ...call(4, 'c-undefined', 'nothing', '{}'),
      ...call(5, 'c-fine', 'echo', '{"text":"hi"}'),
      { type: 'finish', reason: 'tool-calls' },
    ])
    const { agent, timeline } = await harness({ model, tools: [echo, boom, nothing] })
    agent.followup('go')
    await agent.whenIdle()
    // The JSON parser's own wording differs between Node versions; the rest is ours.
    const results = timeline({ maxText: 200 })
      .split('\n')
      .filter((l) => l.startsWith('tool/result'))
      .map((l) => l.replace(/not valid JSON \(.*?\)\. Call/, 'not valid JSON (<parser message>). Call'))
    expect(results).toMatchInlineSnapshot(`
      [
        "tool/result echo "The arguments of \\"echo\\" are not valid JSON (<parser message>). Call the tool again with a JSON object." error",
        "tool/result echo "Invalid arguments for \\"echo\\": $.text: must be a string (found 5). Call the tool again with arguments that match its schema." error",
        "tool/result nope "There is no tool named \\"nope\\". Available tools: echo, boom, nothing." error",
        "tool/result boom "The tool \\"boom\\" failed: disk on fire" error",
        "tool/result nothing "The tool \\"nothing\\" returned nothing; a tool must return a string, content blocks or { content }." error",
        "tool/result echo "echo hi"",
      ]
    `)
    expect(timeline().split('\n').slice(-5)).toEqual([
      'step/end 1.1 tool-calls',
      'step/start 1.2',
      'assistant/message "done"',
      'step/end 1.2 stop',
      'turn/end 1 completed',
    ])
    const second = model.requests[1]!
    expect(second.messages.filter((m) => m.role === 'tool').map((m) => [m.callId, (m as { isError?: boolean }).isError ?? false])).toEqual([
      ['c-json', true],
      ['c-schema', true],
      ['c-unknown', true],
      ['c-throw', true],
      ['c-undefined', true],
      ['c-fine', false],
    ])
    expect(agent.session.last!.data).toEqual({ turn: 1, reason: { kind: 'completed' } })
  })

  it('accepts content blocks and the full result object, including an explicit isError', async () => {
    const blocks = tool('blocks', () => [
      { type: 'text', text: 'part 1, ' },
      { type: 'text', text: 'part 2' },
    ])
    const full = tool('full', () => ({ content: 'not found', isError: true }))
    const { agent, timeline } = await harness({ tools: [blocks, full], responses: [{ toolCalls: [{ name: 'blocks' }, { name: 'full' }] }] })
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline().split('\n').filter((l) => l.startsWith('tool/result'))).toEqual([
      'tool/result blocks "part 1, part 2"',
      'tool/result full "not found" error',
    ])
  })

  it('the tool/result hook can redact a result before it is logged and before the model sees it', async () => {
    const model = scripted({ record: true, responses: [{ toolCalls: [{ name: 'secrets' }] }, { text: 'ok' }] })
    const { agent, timeline } = await harness({ model, tools: [tool('secrets', () => 'password=hunter2')] })
    agent.hooks.toolResult.tap('redactor', (result) => ({
      ...result,
      content: result.content.map((block) => (block.type === 'text' ? { ...block, text: block.text.replace(/=.*/, '=[redacted]') } : block)),
    }))
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline()).toContain('tool/result secrets "password=[redacted]"')
    expect(JSON.stringify(agent.session.events)).not.toContain('hunter2')
    expect(model.recorded[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: [{ type: 'text', text: 'password=[redacted]' }] })
  })
})

describe('continuation', () => {
  it('splices additional contexts into next-step after the results; the model sees them in the next step, after the tool results', async () => {
    const model = scripted({ record: true, responses: [{ toolCalls: [{ name: 'ls' }, { name: 'ls', args: { second: true } }] }, { text: 'seen' }] })
    const ls = tool('ls', ({ second }: { second?: boolean }) => ({
      content: second ? 'listing 2' : 'listing 1',
      additionalContexts: [createUserMessage(second ? 'ctx 2' : 'ctx 1', { source: { kind: 'tool' } })],
    }))
    const { agent, timeline } = await harness({ model, tools: [ls] })
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      assistant/message ls({}) ls({"second":true})
      tool/call ls {}
      tool/call ls {"second":true}
      tool/result ls "listing 1"
      tool/result ls "listing 2"
      splice next-step @0 +["ctx 1"]
      splice next-step @1 +["ctx 2"]
      step/end 1.1 tool-calls
      splice next-step @0 -2
      step/start 1.2
      user/message "ctx 1" (tool)
      user/message "ctx 2" (tool)
      assistant/message "seen"
      step/end 1.2 stop
      turn/end 1 completed"
    `)
    expect(model.recorded[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user', 'user'])
  })

  it('an inject during the tools is deferred after the results and lands before the tool contexts in the next step', async () => {
    const release = gate()
    const running = gate()
    const ls = tool('ls', async () => {
      running.open()
      await release.promise
      return { content: 'listing', additionalContexts: [createUserMessage('ctx', { source: { kind: 'tool' } })] }
    })
    const { agent, timeline } = await harness({ tools: [ls], responses: [{ toolCalls: [{ name: 'ls' }] }, { text: 'ok' }] })
    agent.followup('go')
    await running.promise
    agent.inject('injected meanwhile')
    release.open()
    await agent.whenIdle()
    expect(timeline().split('\n').slice(6)).toMatchInlineSnapshot(`
      [
        "tool/call ls {}",
        "splice next-step @0 +["injected meanwhile"]",
        "tool/result ls "listing"",
        "splice next-step @1 +["ctx"]",
        "step/end 1.1 tool-calls",
        "splice next-step @0 -2",
        "step/start 1.2",
        "user/message "injected meanwhile"",
        "user/message "ctx" (tool)",
        "assistant/message "ok"",
        "step/end 1.2 stop",
        "turn/end 1 completed",
      ]
    `)
  })

  it('a tool declared concludesTurn ends the turn after its results, without another model call', async () => {
    const { agent, adapter, timeline } = await harness({
      tools: [tool('send', () => 'sent', { concludesTurn: true })],
      responses: [{ toolCalls: [{ name: 'send' }] }, { text: 'never asked' }],
    })
    agent.followup('send it')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["send it"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "send it"
      assistant/message send({})
      tool/call send {}
      tool/result send "sent"
      step/end 1.1 tool-calls
      turn/end 1 completed"
    `)
    expect(adapter.requests).toBe(1)
  })

  it('a result with concludesTurn ends the turn the same way', async () => {
    const { agent, adapter } = await harness({
      tools: [tool('finish', () => ({ content: 'bye', concludesTurn: true }))],
      responses: [{ toolCalls: [{ name: 'finish' }] }],
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(adapter.requests).toBe(1)
    expect(agent.session.events.filter((e) => e.type === 'step/start')).toHaveLength(1)
    expect(agent.session.last!.data).toEqual({ turn: 1, reason: { kind: 'completed' } })
  })

  it('a concluding call does not end the turn while next-step input exists: a steer during it gets its step', async () => {
    const send = blockingTool('send', 'sent', { concludesTurn: true })
    const { agent, timeline } = await harness({ tools: [send.tool], responses: [{ toolCalls: [{ name: 'send' }] }, { text: 'noted' }] })
    agent.followup('x')
    await send.started
    agent.steer('wait, one more thing')
    send.release()
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-8)).toMatchInlineSnapshot(`
      [
        "tool/result send "sent"",
        "step/end 1.1 tool-calls",
        "splice next-step @0 -1",
        "step/start 1.2",
        "user/message "wait, one more thing"",
        "assistant/message "noted"",
        "step/end 1.2 stop",
        "turn/end 1 completed",
      ]
    `)
  })

  it('the turn continues unless every call of the step concludes', async () => {
    const { agent, adapter } = await harness({
      tools: [tool('send', () => 'sent', { concludesTurn: true }), tool('read', () => 'data')],
      responses: [{ toolCalls: [{ name: 'send' }, { name: 'read' }] }, { text: 'continuing' }],
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(adapter.requests).toBe(2)
    expect(agent.session.events.filter((e) => e.type === 'step/start')).toHaveLength(2)
  })

  it('a result with concludesTurn: false overrides the tool\'s declaration', async () => {
    const { agent, adapter } = await harness({
      tools: [tool('send', () => ({ content: 'failed to send, retry?', concludesTurn: false }), { concludesTurn: true })],
      responses: [{ toolCalls: [{ name: 'send' }] }, { text: 'retrying' }],
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(adapter.requests).toBe(2)
  })
})

describe('abort during tools', () => {
  it('aborts the running call\'s signal, gives calls that never started a synthetic result, and ends the step and turn aborted', async () => {
    const release = gate()
    const running = gate()
    const signals: string[] = []
    let laterStarts = 0
    const slow = tool('slow', async (_args, { signal }) => {
      signal.addEventListener('abort', () => signals.push(`aborted: ${String(signal.reason)}`))
      running.open()
      await release.promise // ignores the abort
      return 'finished late'
    })
    const later = tool('later', () => {
      laterStarts++
      return 'never'
    })
    const { agent, timeline } = await harness({
      tools: [slow, later],
      maxParallelTools: 1,
      responses: [{ toolCalls: [{ name: 'slow' }, { name: 'later' }] }, { text: 'not asked' }],
    })
    agent.followup('go')
    await running.promise
    agent.abort('stop')
    await agent.whenIdle()
    expect(signals).toEqual(['aborted: stop'])
    expect(laterStarts).toBe(0)
    expect(timeline({ maxText: 200 })).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      assistant/message slow({}) later({})
      tool/call slow {}
      tool/result slow "The turn was aborted while this tool was running; it may or may not have taken effect. Verify before repeating it." error
      tool/result later "The tool call was not started because the turn was aborted." error
      step/end 1.1 aborted
      turn/end 1 aborted (stop)"
    `)
    const length = agent.session.length
    release.open()
    await settle()
    expect(agent.session.length).toBe(length)
  })

  it('every call of an aborted step reaches the model\'s history as a tool message under its own tool name', async () => {
    // The tool/result event carries the name; a ModelMessage of role tool needs it (providers send it back).
    const running = gate()
    const slow = tool('slow', async () => {
      running.open()
      await new Promise(() => {})
      return 'never'
    })
    const { agent } = await harness({
      tools: [slow, tool('later', () => 'never')],
      maxParallelTools: 1,
      responses: [{ toolCalls: [{ name: 'slow' }, { name: 'later' }] }],
    })
    agent.followup('go')
    await running.promise
    agent.abort()
    await agent.whenIdle()
    const toolMessages = agent.surface.messages.filter((m) => m.role === 'tool')
    expect(toolMessages.map((m) => [(m as { name: string }).name, (m as { isError?: boolean }).isError])).toEqual([
      ['slow', true],
      ['later', true],
    ])
  })
})

describe('definitions', () => {
  it('refuses an invalid tool set with INVALID_TOOL before a session is created', async () => {
    const store = memoryStore()
    const attempt = createAgent({
      model: scripted(),
      store,
      sessionId: 'tools-bad',
      tools: [tool('same', () => 'a'), tool('same', () => 'b')],
    })
    await expect(attempt).rejects.toMatchObject({ code: 'INVALID_TOOL', message: expect.stringContaining('"same"') })
    expect(await store.list()).toEqual([])
  })

  it('offers the model every tool with its description and parameters', async () => {
    const model = scripted({ record: true })
    const read = tool('read', () => 'x', {
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    })
    const { agent } = await harness({ model, tools: [read] })
    const requests: unknown[] = []
    agent.hooks.prepareCall.tap('spy', (request) => {
      requests.push(request.tools)
      return request
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(requests).toEqual([
      [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
    ])
  })
})

describe('long turns', () => {
  it('runs 30 tool steps in one turn without piling abort listeners on the turn signal (no leak warning)', async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
    process.on('warning', onWarning)
    try {
      const echo = tool('echo', () => 'ok')
      const responses = [
        ...Array.from({ length: 30 }, () => ({ toolCalls: [{ name: 'echo' }, { name: 'echo' }] })),
        { text: 'done' },
      ]
      const { agent } = await harness({ tools: [echo], responses })
      agent.followup('go')
      await agent.whenIdle()
      await tick()
      const results = agent.session.events.filter((event) => event.type === 'tool/result')
      expect(results).toHaveLength(60)
      expect(agent.session.last!.data).toEqual({ turn: 1, reason: { kind: 'completed' } })
      expect(warnings.filter((warning) => warning.includes('MaxListeners'))).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })
})
