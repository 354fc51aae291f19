/**
 * A real session log for the fold tests: an agent on the scripted model (the offline model) with
 * the retry and content-filter plugins and a tool, driven through the states the UI draws —
 * reasoning, streamed text, a tool call and its result, a retry, a pre-step reject, a steer that
 * enters a later step, an aborted turn, a removed follow-up and a compaction.
 */
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, memoryStore, type SessionEvent } from '@bosun/core'
import compaction from '@bosun/plugin-compaction'
import contentFilter from '@bosun/plugin-content-filter'
import retry from '@bosun/plugin-retry'
import type { WireEvent } from '@bosun/host/client'

const lookup = {
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  execute: async (args: { q: string }) => `definition of ${args.q}`,
}

/** Resolves once an event satisfying `test` is appended (or already was). */
function waitForEvent(events: () => readonly SessionEvent[], subscribe: (fn: (event: SessionEvent) => void) => () => void, test: (event: SessionEvent) => boolean): Promise<void> {
  if (events().some(test)) return Promise.resolve()
  return new Promise((resolve) => {
    const stop = subscribe((event) => {
      if (!test(event)) return
      stop()
      resolve()
    })
  })
}

export async function realLog(): Promise<WireEvent[]> {
  const model = scripted({
    responses: [
      { reasoning: 'I should look it up.', text: 'Looking.', toolCalls: [{ name: 'lookup', args: { q: 'bosun' } }], chunkSize: 3, usage: { inputTokens: 12, outputTokens: 7 } },
      { text: 'A bosun runs the deck.', chunkSize: 4 },
      { error: { status: 503, message: 'overloaded' } },
      { text: 'Second answer after a retry.', chunkSize: 6 },
      { text: 'A slow answer that a steer joins.', chunkSize: 1, delayMs: 2 },
      { text: 'Answer with the steer.' },
      { text: 'This one is stopped half way through its long answer.', chunkSize: 1, delayMs: 5 },
    ],
  })
  const agent = await createAgent({
    model,
    store: memoryStore(),
    sessionId: 'fold',
    tools: [lookup as never],
    plugins: [
      [retry, { maxAttempts: 3, minDelayMs: 1, maxDelayMs: 1 }],
      [contentFilter, { rules: [{ id: 'secret', keywords: ['forbidden'], action: 'reject' }] }],
      [compaction, { contextWindow: 100_000, model: { adapter: scripted({ responses: [{ text: 'They talked about the bosun.' }] }) } }],
    ],
  })
  const session = agent.session
  const on = (test: (event: SessionEvent) => boolean): Promise<void> => waitForEvent(() => session.events, (fn) => session.subscribe(fn as never), test)

  agent.followup('What is a bosun?')
  await agent.whenIdle()
  agent.followup('Again, please.')
  await agent.whenIdle()
  agent.followup('this is forbidden')
  await agent.whenIdle()

  // A steer that arrives during a text step rides one more step of the same turn.
  let mark = session.length
  agent.followup('Tell me slowly.')
  await on((event) => event.type === 'assistant/chunk' && event.seq >= mark)
  agent.steer('Also mention ropes.')
  await agent.whenIdle()

  // A follow-up queued behind a running turn and removed; the running turn is stopped.
  mark = session.length
  agent.followup('Stop me.')
  await on((event) => event.type === 'assistant/chunk' && event.seq >= mark)
  const removed = agent.followup('Never mind this one.')
  agent.inbox.remove(removed.id)
  agent.abort('user stop')
  await agent.whenIdle()

  // A compaction between turns (maintenance), as `agent.compact()` runs it.
  await agent.compact('manual')
  return session.events.map((event) => ({ seq: event.seq, time: event.time, type: event.type, data: JSON.parse(JSON.stringify(event.data)) as unknown }))
}
