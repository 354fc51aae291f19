// The status index (status-fold.ts) tells a waking send from input queued again as core's recovery
// does (noteWaiting, core's store/repair.ts): for every splice that queues input into an idle log,
// the stream says `idle` after it exactly when a crash right after that splice would leave the
// input parked (`recovery.waiting` unset). Logs made by a real agent from random sends (follow-up,
// steer, inject), edits, reorders, cancels and Stops, cut after each such splice and reopened.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, LOG_FORMAT_VERSION, memoryStore, type Agent, type SessionEvent, type UserMessage } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { StatusIndex } from '../src/status-fold.js'

type Op =
  | { kind: 'followup' | 'steer' | 'inject' }
  | { kind: 'edit' | 'cancel'; at: number }
  | { kind: 'reorder' | 'stop' | 'idle' }

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constantFrom<Op>({ kind: 'followup' }, { kind: 'steer' }, { kind: 'inject' }), weight: 3 },
  { arbitrary: fc.constantFrom<Op>({ kind: 'reorder' }, { kind: 'stop' }, { kind: 'idle' }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom<'edit' | 'cancel'>('edit', 'edit', 'cancel'), at: fc.nat(4) }), weight: 2 },
)

/** Runs `ops` on a live agent; a tick (a macrotask) after each lets a started turn run a little. */
async function logOf(ops: readonly Op[]): Promise<readonly SessionEvent[]> {
  const store = memoryStore()
  const agent: Agent = await createAgent({ model: scripted({ responses: Array.from({ length: 40 }, () => ({ text: 'okay', chunkSize: 1, delayMs: 1 })) }), store, sessionId: 's' })
  let n = 0
  for (const step of ops) {
    const pending = [...agent.inbox.nextStep, ...agent.inbox.nextTurn]
    switch (step.kind) {
      case 'followup':
      case 'steer':
      case 'inject':
        agent[step.kind](`${step.kind} ${n++}`)
        break
      case 'edit': {
        const message = pending[step.at % Math.max(1, pending.length)]
        const found = message && agent.inbox.find(message.id)
        if (found) agent.inbox.splice(found.target, found.index, 1, [{ ...found.message, content: [{ type: 'text', text: `edited ${n++}` }] } as UserMessage])
        break
      }
      case 'cancel': {
        const message = pending[step.at % Math.max(1, pending.length)]
        const found = message && agent.inbox.find(message.id)
        if (found) agent.inbox.splice(found.target, found.index, 1)
        break
      }
      case 'reorder': {
        const queue = agent.inbox.nextTurn
        if (queue.length > 1) agent.inbox.splice('next-turn', 0, queue.length, [...queue].reverse())
        break
      }
      case 'stop':
        agent.abort()
        break
      case 'idle':
        await agent.whenIdle()
        break
    }
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  await agent.whenIdle()
  await agent.close()
  const stored = (await store.open('s'))!
  await stored.writer.close()
  return stored.events
}

/** Whether core's recovery owes a turn to the input pending in `events` cut after `seq` (a crash right after it). */
async function owedAfter(events: readonly SessionEvent[], seq: number): Promise<boolean> {
  const store = memoryStore()
  await (await store.create({ id: 'cut', version: LOG_FORMAT_VERSION, createdAt: 1 }, events.slice(0, seq + 1))).writer.close()
  const agent = await createAgent({ model: scripted(), store, sessionId: 'cut' })
  const owed = agent.recovery.waiting !== undefined
  await agent.close()
  return owed
}

describe('host: the status index against core\'s recovery', () => {
  it('says idle after a splice into an idle log exactly when core would leave its input parked', async () => {
    /** Each splice compared: whether the index said idle after it. */
    const compared: boolean[] = []
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const events = await logOf(ops)
        const index = new StatusIndex()
        for (const event of events) {
          const said = index.statusAfter(event)
          if (event.type !== 'agent/inbox/spliced' || (event.data as { inserted: unknown[] }).inserted.length === 0) continue
          // Running: a splice during a turn rides it or the driver's next (no frame, nothing to compare).
          if (said === undefined && runningAt(events, event.seq)) continue
          compared.push(said === 'idle')
          expect({ seq: event.seq, parked: said === 'idle' }).toEqual({ seq: event.seq, parked: !(await owedAfter(events, event.seq)) })
        }
      }),
      {
        numRuns: 150,
        // A follow-up queued behind a turn a Stop ended, then edited: queued again, parked.
        examples: [[[{ kind: 'followup' }, { kind: 'followup' }, { kind: 'stop' }, { kind: 'edit', at: 0 }]]],
      },
    )
    // Both answers came up, often.
    expect(compared.filter(Boolean).length).toBeGreaterThan(10)
    expect(compared.filter((idle) => !idle).length).toBeGreaterThan(10)
  }, 120_000)
})

/** Whether the log is inside a turn at `seq` (its last boundary before it is a turn/start). */
function runningAt(events: readonly SessionEvent[], seq: number): boolean {
  for (let i = seq - 1; i >= 0; i--) {
    if (events[i]!.type === 'turn/start') return true
    if (events[i]!.type === 'turn/end') return false
  }
  return false
}
