import { expect, it } from 'vitest'
import { formatTimeline } from '@bosun/core'
import retry from '@bosun/plugin-retry'
import { testPlugin } from '@bosun/testkit'
import compaction from './index.js'

const long = (label: string) => `${label}: ${'lorem ipsum '.repeat(8)}`.trim()

it('beside retry: a rate limit is retried inside, a context-window error compacted outside, in one step', async () => {
  // retry taps llm/stream at Stage.first (innermost), compaction at Stage.early: listing order does not matter.
  const kit = await testPlugin(compaction, {}, {
    plugins: [[retry, { minDelayMs: 0, maxDelayMs: 100 }]],
    responses: [
      { text: long('answer one') }, { text: long('answer two') },
      { error: { status: 429, retryAfterMs: 1 } },
      { error: { status: 400, code: 'CONTEXT_WINDOW_EXCEEDED' } },
      { text: 'Summary.' },
      { text: 'three done' },
    ],
  })
  await kit.send(long('question one'))
  await kit.send(long('question two'))
  const turn = await kit.send(long('question three'))
  const lines = formatTimeline(turn.events, { maxText: 20 }).split('\n').filter((line) => !line.startsWith('splice'))
  expect(lines.map((line) => line.replace(/ \{.*\}$/, ''))).toMatchInlineSnapshot(`
    [
      "turn/start 3",
      "step/start 3.1",
      "user/message "question three: lore…"",
      "request/header 3.1 5 messages",
      "llm/retry 3.1 attempt=2 delay=1ms RATE_LIMIT",
      "compaction/start (context-window)",
      "compaction/summary "Summary of the earli…" replaces seq < 27",
      "compaction/end",
      "llm/retry 3.1 attempt=3 delay=0ms CONTEXT_WINDOW_EXCEEDED",
      "assistant/message "three done"",
      "step/end 3.1 stop",
      "turn/end 3 completed",
    ]
  `)
  expect(kit.model.recorded.at(-1)?.messages).toHaveLength(2)
})

it('the compacted re-send goes through retry too: a rate limit on it is retried with the compacted history', async () => {
  const kit = await testPlugin(compaction, {}, {
    plugins: [[retry, { minDelayMs: 0, maxDelayMs: 100 }]],
    responses: [
      { text: long('answer one') }, { text: long('answer two') },
      { error: { status: 400, code: 'CONTEXT_WINDOW_EXCEEDED' } },
      { text: 'Summary.' },
      { error: { status: 429, retryAfterMs: 1 } }, // the compacted request, rate-limited
      { text: 'three done' },
    ],
  })
  await kit.send(long('question one'))
  await kit.send(long('question two'))
  const turn = await kit.send(long('question three'))
  const lines = formatTimeline(turn.events, { maxText: 20 }).split('\n').filter((line) => !line.startsWith('splice'))
  expect(lines.map((line) => line.replace(/ \{.*\}$/, ''))).toMatchInlineSnapshot(`
    [
      "turn/start 3",
      "step/start 3.1",
      "user/message "question three: lore…"",
      "request/header 3.1 5 messages",
      "compaction/start (context-window)",
      "compaction/summary "Summary of the earli…" replaces seq < 27",
      "compaction/end",
      "llm/retry 3.1 attempt=2 delay=0ms CONTEXT_WINDOW_EXCEEDED",
      "llm/retry 3.1 attempt=3 delay=1ms RATE_LIMIT",
      "assistant/message "three done"",
      "step/end 3.1 stop",
      "turn/end 3 completed",
    ]
  `)
  // The requests of turn 3: the original five messages, the summary request, then the compacted
  // request (summary + question) twice — the rate-limited attempt and its retry.
  expect(kit.model.recorded.map((request) => request.messages.length).slice(2)).toEqual([5, 1, 2, 2])
})
