/**
 * A long session written straight into the JSONL store the server will read: `turns` completed
 * turns of the shape a real one has (admission splice, turn/start, claim, step/start,
 * user/message, assistant/message with usage, step/end, turn/end).
 */
import { join } from 'node:path'
import type { SessionEvent } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'

export async function writeBigSession(dir: string, id: string, turns: number): Promise<number> {
  const events: SessionEvent[] = []
  let time = Date.now() - turns * 1000
  const push = (type: string, data: unknown): void => {
    time += 7
    events.push({ seq: events.length, time, type, data } as SessionEvent)
  }
  for (let turn = 1; turn <= turns; turn += 1) {
    const message = { id: `m-${turn}`, role: 'user', content: [{ type: 'text', text: `Question number ${turn}: what does the bosun check next?` }], source: { kind: 'user' } }
    push('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [message] })
    push('turn/start', { turn })
    push('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
    push('step/start', { turn, step: 1 })
    push('user/message', message)
    const text = `Answer ${turn}. The bosun checks the rigging, the anchors and the boats, and reports to the mate. `.repeat(1 + (turn % 4))
    push('assistant/message', { turn, step: 1, message: { role: 'assistant', content: [{ type: 'text', text }] }, usage: { inputTokens: 40 + turn, outputTokens: text.length / 4 } })
    push('step/end', { turn, step: 1, finish: 'stop' })
    push('turn/end', { turn, reason: { kind: 'completed' } })
  }
  const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
  const created = await store.create({ id, version: 1, createdAt: Date.now() }, events)
  await created.writer.close()
  await store.close()
  return events.length - 1
}
