import { describe, expect, it } from 'vitest'
import { scripted, type ScriptedEntry } from '@bosun/adapter-scripted'
import { formatTimeline, isEvent, type ModelMessage, type ModelRequest, type SessionEvent, type Tool } from '@bosun/core'
import { testPlugin, type PluginKit } from '@bosun/testkit'
import compaction from './index.js'
import { SUMMARY_PREFIX, SUMMARY_SYSTEM_PROMPT } from './summarize.js'

/** About 100 characters of text, labelled so the timeline shows which is which. */
const long = (label: string) => `${label}: ${'lorem ipsum '.repeat(8)}`.trim()

/** Sends `labels` as follow-ups, one turn each (the scripted answers come from the kit's script). */
async function converse(kit: PluginKit, ...labels: string[]) {
  for (const label of labels) await kit.send(long(label))
}

const compactionEvents = (events: readonly SessionEvent[]) => events.filter((e) => e.type.startsWith('compaction/'))
/**
 * `n` scripted answers that tell a summary request (`params.compaction`) from a turn's request:
 * `Summary <k>.` for the k-th summary, a long `answer <k>` otherwise.
 */
function model(n: number): ScriptedEntry[] {
  let summaries = 0
  let answers = 0
  return Array.from({ length: n }, () => (request: ModelRequest) =>
    request.params.compaction === true ? { text: `Summary ${++summaries}.` } : { text: long(`answer ${++answers}`) })
}

const CONTEXT_WINDOW_EXCEEDED = { error: { status: 400, code: 'CONTEXT_WINDOW_EXCEEDED' as const } }

describe('compaction before a request that would exceed the threshold', () => {
  it('summarises the older turns before the request of the step, which then starts with the summary', async () => {
    // 200 tokens × 0.5: the third turn's request (five messages of ~116 chars) is over the threshold.
    const kit = await testPlugin(compaction, { contextWindow: 200, thresholdRatio: 0.5, retainRatio: 0.25 }, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }, { text: 'They talked about one and two.' }, { text: 'three done' }],
    })
    await converse(kit, 'question one', 'question two')
    const turn = await kit.send(long('question three'))
    expect(formatTurn(turn.events)).toMatchInlineSnapshot(`
      "turn/start 3
      step/start 3.1
      user/message "question three: lorem ip…"
      compaction/start (threshold)
      compaction/summary "Summary of the earlier p…" replaces seq < 27
      compaction/end
      request/header 3.1 2 messages
      assistant/message "three done"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
    const [summaryRequest, request] = kit.model.recorded.slice(2)
    expect(summaryRequest).toMatchObject({ system: SUMMARY_SYSTEM_PROMPT, tools: [], params: { compaction: true } })
    expect(text(summaryRequest!.messages[0]!)).toContain('question one: lorem')
    expect(text(summaryRequest!.messages[0]!)).toContain('answer two: lorem')
    expect(request!.messages.map((m) => [m.role, text(m).slice(0, 30)])).toEqual([
      ['user', SUMMARY_PREFIX.slice(0, 30)],
      ['user', 'question three: lorem ipsum lo'],
    ])
    expect(text(request!.messages[0]!)).toBe(`${SUMMARY_PREFIX}They talked about one and two.`)
    // The log keeps everything; only the surface changed.
    expect(kit.events.filter((e) => isEvent(e, 'user/message'))).toHaveLength(3)
    expect(kit.agent.surface.messages).toHaveLength(3)
  })

  it('does not compact a history under the threshold', async () => {
    const kit = await testPlugin(compaction, { contextWindow: 128_000 })
    await converse(kit, 'one', 'two', 'three')
    expect(compactionEvents(kit.events)).toEqual([])
    expect(kit.model.requests).toBe(3)
  })

  it('a failed summary request leaves the history as it was and the turn goes on', async () => {
    const kit = await testPlugin(compaction, { contextWindow: 200, thresholdRatio: 0.5, retainRatio: 0.25 }, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }, { error: { status: 503 } }, { text: 'three done' }],
    })
    await converse(kit, 'question one', 'question two')
    const turn = await kit.send(long('question three'))
    expect(turn.end).toEqual({ kind: 'completed' })
    expect(compactionEvents(turn.events).map((e) => e.data)).toMatchObject([
      { reason: 'threshold' },
      { ok: false, reason: 'summary-failed', error: { code: 'SERVER' } },
    ])
    expect(kit.model.recorded[3]?.messages).toHaveLength(5)
  })

  it('compacts again later: the new summary replaces the old one, which it summarises too', async () => {
    const kit = await testPlugin(compaction, { contextWindow: 200, thresholdRatio: 0.5, retainRatio: 0.25 }, { responses: model(12) })
    await converse(kit, 'question one', 'question two', 'question three', 'question four', 'question five')
    const summaries = kit.events.filter((e) => isEvent(e, 'compaction/summary'))
    expect(summaries.length).toBeGreaterThanOrEqual(2)
    const requests = kit.model.recorded.filter((r) => r.params.compaction === true)
    expect(text(requests[1]!.messages[0]!)).toContain(`${SUMMARY_PREFIX}Summary 1.`)
    const surface = kit.agent.surface.messages
    expect(text(surface[0]!)).toBe(`${SUMMARY_PREFIX}Summary ${summaries.length}.`)
    expect(surface.slice(1).every((m) => !text(m).startsWith(SUMMARY_PREFIX))).toBe(true)
    expect(text(surface.at(-2)!)).toBe(long('question five'))
  })
})

describe('compaction after a context-window error', () => {
  it('compacts and sends the request once more, with the compacted history', async () => {
    const kit = await testPlugin(compaction, {}, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }, CONTEXT_WINDOW_EXCEEDED, { text: 'Earlier: one, two.' }, { text: 'three done' }],
    })
    await converse(kit, 'question one', 'question two')
    const turn = await kit.send(long('question three'))
    expect(formatTurn(turn.events)).toMatchInlineSnapshot(`
      "turn/start 3
      step/start 3.1
      user/message "question three: lorem ip…"
      request/header 3.1 5 messages
      compaction/start (context-window)
      compaction/summary "Summary of the earlier p…" replaces seq < 27
      compaction/end
      llm/retry 3.1 attempt=2 delay=0ms CONTEXT_WINDOW_EXCEEDED
      assistant/message "three done"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
    expect(kit.model.recorded[4]?.messages.map((m) => m.role)).toEqual(['user', 'user'])
    expect(text(kit.model.recorded[4]!.messages[0]!)).toBe(`${SUMMARY_PREFIX}Earlier: one, two.`)
  })

  it('retries only once: a second context-window error ends the turn with it', async () => {
    const kit = await testPlugin(compaction, {}, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }, CONTEXT_WINDOW_EXCEEDED, { text: 'Short.' }, CONTEXT_WINDOW_EXCEEDED, { text: 'never' }],
    })
    await converse(kit, 'question one', 'question two')
    const turn = await kit.send(long('question three'))
    expect(turn.error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED' })
    expect(kit.model.requests).toBe(5)
  })

  it('with nothing to compact, the error ends the turn and nothing is logged', async () => {
    const kit = await testPlugin(compaction, {}, { responses: [CONTEXT_WINDOW_EXCEEDED] })
    const turn = await kit.send(long('question one'))
    expect(turn.error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED' })
    expect(compactionEvents(kit.events)).toEqual([])
  })
})

describe('agent.compact()', () => {
  it('compacts between turns, keeping the most recent part of the history', async () => {
    const kit = await testPlugin(compaction, { contextWindow: 128_000, retainRatio: 0.3 }, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }, { text: long('answer three') }, { text: 'One and two happened.' }],
    })
    await converse(kit, 'question one', 'question two', 'question three')
    const from = kit.events.length
    expect(await kit.agent.compact()).toBe(true)
    expect(formatTurn(kit.events.slice(from))).toMatchInlineSnapshot(`
      "compaction/start (manual)
      compaction/summary "Summary of the earlier p…" replaces seq < 27
      compaction/end"
    `)
    expect(kit.agent.surface.messages.map((m) => text(m).slice(0, 20))).toEqual([
      SUMMARY_PREFIX.slice(0, 20), 'question three: lore', 'answer three: lorem ',
    ])
    await kit.send('next')
    expect(kit.model.recorded.at(-1)?.messages).toHaveLength(4)
  })

  it('answers false and writes nothing when there is nothing to compact', async () => {
    const kit = await testPlugin(compaction, {})
    await kit.send('only turn')
    const before = kit.events.length
    expect(await kit.agent.compact()).toBe(false)
    expect(kit.events.length).toBe(before)
  })

  it('an abort during the summary request ends the compaction without a summary', async () => {
    const kit = await testPlugin(compaction, {}, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }, { text: 'a slow summary', delayMs: 5000 }],
    })
    await converse(kit, 'question one', 'question two')
    const compacting = kit.agent.compact()
    await new Promise((resolve) => setTimeout(resolve, 20))
    kit.agent.abort()
    expect(await compacting).toBe(false)
    expect(compactionEvents(kit.events).map((e) => `${e.type} ${JSON.stringify(e.data)}`)).toMatchInlineSnapshot(`
      [
        "compaction/start {"reason":"manual","estimatedTokens":124,"contextWindow":128000,"firstKeptSeq":16,"replacing":{"messages":2,"tokens":62}}",
        "compaction/end {"ok":false,"reason":"aborted"}",
      ]
    `)
    expect(kit.agent.surface.messages).toHaveLength(4)
  })

  it('writes summaries with the model given in options, not the agent’s', async () => {
    const summarizer = scripted({ record: true, responses: [{ text: 'Summarised elsewhere.' }] })
    const kit = await testPlugin(compaction, { model: { adapter: summarizer } }, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }],
    })
    await converse(kit, 'question one', 'question two')
    expect(await kit.agent.compact()).toBe(true)
    expect(summarizer.recorded).toHaveLength(1)
    expect(summarizer.recorded[0]?.params).toEqual({ compaction: true })
    expect(kit.model.requests).toBe(2)
    expect(text(kit.agent.surface.messages[0]!)).toBe(`${SUMMARY_PREFIX}Summarised elsewhere.`)
  })

  it('accepts an adapter definition with options as the summary model', async () => {
    const { default: scriptedAdapter } = await import('@bosun/adapter-scripted')
    const kit = await testPlugin(compaction, { model: { adapter: scriptedAdapter, options: { responses: [{ text: 'By definition.' }] } } }, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }],
    })
    await converse(kit, 'question one', 'question two')
    expect(await kit.agent.compact()).toBe(true)
    expect(text(kit.agent.surface.messages[0]!)).toBe(`${SUMMARY_PREFIX}By definition.`)
  })
})

describe('where the history is cut', () => {
  const lookup: Tool = {
    name: 'lookup',
    description: 'Looks something up.',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    execute: ({ q }: { q?: string }) => ({ content: `result for ${q}: ${'data '.repeat(20)}`, additionalContexts: [`note about ${q}`] }),
  }

  /** Three turns; each calls the tool (step 1), gets a note as context (step 2's user/message), then answers. */
  async function toolHistory(retainRatio: number) {
    const kit = await testPlugin(compaction, { contextWindow: 100_000, thresholdRatio: 1, retainRatio }, {
      tools: [lookup],
      responses: ['a', 'b', 'c'].flatMap((q) => [
        { text: `Looking up ${q}.`, toolCalls: [{ name: 'lookup', args: { q } }] },
        { text: long(`answer ${q}`) },
      ]),
    })
    await converse(kit, 'question a', 'question b', 'question c')
    kit.model.push({ text: 'The user asked about a, b and c; the tool answered.' })
    return kit
  }

  it.each([0, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 0.95])(
    'never separates a tool call from its result, and keeps a tail that starts with a user message (retainRatio %s)',
    async (retainRatio) => {
      const kit = await toolHistory(retainRatio)
      const before = kit.agent.surface.messages.length
      expect(await kit.agent.compact()).toBe(true)
      const [summary, ...kept] = kit.agent.surface.messages
      expect(text(summary!)).toContain(SUMMARY_PREFIX)
      expect(kept.length).toBeGreaterThan(0)
      expect(kept.length).toBeLessThan(before)
      expect(kept[0]?.role).toBe('user')
      expectCallsBeforeResults(kept)
      const { firstKeptSeq } = kit.events.find((e) => isEvent(e, 'compaction/summary'))!.data
      const cutAt = kit.events[firstKeptSeq]!
      expect(cutAt.type).toBe('user/message')
      expect(kit.events[firstKeptSeq - 1]?.type).toBe('step/start')
    },
  )

  it('keeps about retainRatio of the history verbatim', async () => {
    const small = await toolHistory(0.05)
    const large = await toolHistory(0.6)
    await small.agent.compact()
    await large.agent.compact()
    expect(small.agent.surface.messages.length).toBeLessThan(large.agent.surface.messages.length)
  })

  it('never cuts into the step that is running: the current step is kept whole', async () => {
    const kit = await testPlugin(compaction, { contextWindow: 200, thresholdRatio: 0.5, retainRatio: 0 }, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }, { text: 'Summary.' }, { text: 'three done' }],
    })
    await converse(kit, 'question one', 'question two', 'question three')
    const { firstKeptSeq } = kit.events.find((e) => isEvent(e, 'compaction/summary'))!.data
    expect(kit.events[firstKeptSeq]?.data).toMatchObject({ role: 'user', content: [{ text: long('question three') }] })
    expect(kit.model.recorded.at(-1)?.messages.map((m) => m.role)).toEqual(['user', 'user'])
  })
})

describe('a summary that does not save anything', () => {
  it('is rejected: compaction/end {ok: false, reason: not-shorter} and no summary', async () => {
    const kit = await testPlugin(compaction, {}, {
      responses: [{ text: 'a1' }, { text: 'a2' }, { text: long('a summary far longer than what it summarises') }],
    })
    await converse(kit, 'q1', 'q2')
    const before = [...kit.agent.surface.messages]
    expect(await kit.agent.compact()).toBe(false)
    expect(compactionEvents(kit.events).map((e) => e.type)).toEqual(['compaction/start', 'compaction/end'])
    expect(compactionEvents(kit.events)[1]?.data).toMatchObject({ ok: false, reason: 'not-shorter' })
    expect(kit.agent.surface.messages).toEqual(before)
  })

  it('is not asked for again before every request of the same history', async () => {
    const kit = await testPlugin(compaction, { contextWindow: 250, thresholdRatio: 0.5, retainRatio: 0.25 }, {
      tools: [{ name: 'noop', description: 'Does nothing.', parameters: { type: 'object' }, execute: () => 'ok' }],
      responses: [
        { text: long('answer one') }, { text: long('answer two') },
        { text: 'x'.repeat(2000) }, // the summary: longer than the history, rejected
        { toolCalls: [{ name: 'noop' }] }, { text: 'three done' },
      ],
    })
    await converse(kit, 'question one', 'question two', 'question three')
    // (The tool's definition counts too: 250 tokens leave turn 2 under the threshold.)
    // Step 3.2 is over the threshold too, with the same possible cut: no second summary request.
    expect(compactionEvents(kit.events).map((e) => e.type)).toEqual(['compaction/start', 'compaction/end'])
    expect(kit.model.requests).toBe(5)
  })
})

describe('crash safety', () => {
  it('a crash between compaction/start and compaction/end leaves a log that opens and works', async () => {
    const kit = await testPlugin(compaction, {}, {
      responses: [{ text: long('answer one') }, { text: long('answer two') }, { text: 'after the crash' }, { text: 'Summary.' }],
    })
    await converse(kit, 'question one', 'question two')
    kit.agent.session.append('compaction/start', { reason: 'manual' })
    await kit.restart()
    expect(kit.agent.surface.messages).toHaveLength(4)
    const turn = await kit.send('still there?')
    expect(turn.end).toEqual({ kind: 'completed' })
    expect(turn.reply).toBe('after the crash')
    expect(kit.model.recorded.at(-1)?.messages).toHaveLength(5)
    expect(await kit.agent.compact()).toBe(true)
  })

  it('after a restart the compacted history is rebuilt from the log and compaction goes on from it', async () => {
    const kit = await testPlugin(compaction, { contextWindow: 200, thresholdRatio: 0.5, retainRatio: 0.25 }, { responses: model(12) })
    await converse(kit, 'question one', 'question two', 'question three')
    await kit.restart()
    const reported: unknown[] = []
    kit.agent.hooks.error.tap('test', (error) => void reported.push(error))
    expect(text(kit.agent.surface.messages[0]!)).toBe(`${SUMMARY_PREFIX}Summary 1.`)
    await converse(kit, 'question four', 'question five')
    expect(reported).toEqual([])
    expect(kit.events.filter((e) => isEvent(e, 'compaction/summary')).length).toBeGreaterThanOrEqual(2)
    expect(text(kit.model.recorded.at(-1)!.messages[0]!)).toMatch(/^Summary of the earlier part/)
    expect(text(kit.model.recorded.at(-1)!.messages.at(-1)!)).toBe(long('question five'))
  })
})

function text(message: ModelMessage | { content: readonly { type: string; text?: string }[] }): string {
  return message.content.map((block) => ('text' in block && block.type === 'text' ? block.text : '')).join('')
}

/** The timeline of `events` with request headers (to show what happened before the request), without splices. */
function formatTurn(events: readonly SessionEvent[]): string {
  return formatTimeline(events.filter((e) => e.type !== 'agent/inbox/spliced'), { maxText: 24 })
}

/** Every tool message's call is in an assistant message before it. */
function expectCallsBeforeResults(messages: readonly ModelMessage[]): void {
  const calls = new Set<string>()
  for (const message of messages) {
    if (message.role === 'assistant') for (const block of message.content) if (block.type === 'tool-call') calls.add(block.id)
    if (message.role === 'tool') expect(calls, `tool result ${message.callId} without its call`).toContain(message.callId)
  }
}
