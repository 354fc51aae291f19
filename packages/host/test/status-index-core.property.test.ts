// The status index (status-fold.ts) tells a waking send from input queued again as core's recovery
// does (noteWaiting, core's store/repair.ts): for every splice that queues input into an idle log,
// the stream says `idle` after it exactly when a crash right after that splice would leave the
// input parked (`recovery.waiting` unset) — except after a plugin puts back what a turn it blocked
// claimed: the log does not say whether the plugin wakes the agent then (the rate-limit plugin
// does: its turn/start follows), so the index says nothing there and until that turn (core parks
// it). And `idle` after a splice is never followed at once by a `turn/start` (a flash of "Queued,
// not running").
// Logs made by a real agent from random sends (follow-up, steer, inject), edits, reorders, cancels,
// Stops, blocked turns and put-backs with and without a wake, cut after each such splice and reopened.
// And forks of such logs (core's forkSession, after a random turn or its last), run on in their own
// agent: the seed is the parent's, queued input in it included (a follow-up claimed after the cut,
// an inject left parked), and core's fork starts its queues empty at the seed (inbox/replay.ts,
// store/repair.ts); the index, given the seed's length as the host gives it, must agree on the
// fork's own splices.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, definePlugin, forkSession, LOG_FORMAT_VERSION, memoryStore, type Agent, type SessionEvent, type SessionHeader, type Store, type UserMessage } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { StatusIndex } from '../src/status-fold.js'

type Op =
  | { kind: 'followup' | 'steer' | 'inject' }
  | { kind: 'edit' | 'cancel'; at: number }
  | { kind: 'reorder' | 'stop' | 'idle' }
  /** `block`: the next turn's first step is rejected; `putBack`: its claim goes back, with a wake (as the rate-limit plugin's requeue) or `quietly`. */
  | { kind: 'block' }
  | { kind: 'putBack'; wake: boolean }

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constantFrom<Op>({ kind: 'followup' }, { kind: 'steer' }, { kind: 'inject' }), weight: 3 },
  { arbitrary: fc.constantFrom<Op>({ kind: 'reorder' }, { kind: 'stop' }, { kind: 'idle' }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom<'edit' | 'cancel'>('edit', 'edit', 'cancel'), at: fc.nat(4) }), weight: 2 },
  { arbitrary: fc.oneof(fc.constant<Op>({ kind: 'block' }), fc.record({ kind: fc.constant<'putBack'>('putBack'), wake: fc.boolean() })), weight: 2 },
)

const fork: fc.Arbitrary<Fork> = fc.record({ afterTurn: fc.option(fc.nat(4)), ops: fc.array(op, { minLength: 1, maxLength: 8 }) })

/** A log (its header: a fork's names its seed) and the seqs of its put-back splices. */
interface Made {
  header: SessionHeader
  events: readonly SessionEvent[]
  putBacks: readonly number[]
}

/** A fork of the parent's log after turn `afterTurn` modulo its ended turns + 1 (its last ended turn if null), run on with `ops`. */
interface Fork {
  afterTurn: number | null
  ops: Op[]
}

/** Runs `ops` on a live agent of session `id` in `store`; a tick (a macrotask) after each lets a started turn run a little. */
async function logOf(ops: readonly Op[], store: Store = memoryStore(), id = 's'): Promise<Made> {
  let blockNext = false
  let rejected: UserMessage[] = []
  // As the rate-limit plugin with onLimit 'requeue': a turn's first step rejected, its claim put back later.
  const blocker = definePlugin({
    name: 'block-then-put-back',
    setup(ctx) {
      ctx.hooks.preStep.tapPromise('block-then-put-back', async (decision, { step, claimed }) => {
        if (!blockNext || step !== 1 || decision.kind !== 'enter' || claimed.length === 0) return decision
        blockNext = false
        rejected = [...claimed]
        return { kind: 'reject', by: 'block-then-put-back' }
      })
    },
  })
  const agent: Agent = await createAgent({ model: scripted({ responses: Array.from({ length: 40 }, () => ({ text: 'okay', chunkSize: 1, delayMs: 1 })) }), store, sessionId: id, plugins: [blocker] })
  const putBacks: number[] = []
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
      case 'block':
        blockNext = true
        break
      case 'putBack': {
        const back = rejected.filter((message) => agent.inbox.find(message.id) === undefined)
        rejected = []
        if (back.length === 0) break
        const seq = agent.session.length
        try {
          agent.inbox.requeue('next-turn', 0, back)
        } catch {
          break // Not claimable now (it reached a step): nothing logged.
        }
        putBacks.push(seq)
        if (step.wake) agent.wake()
        break
      }
    }
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  await agent.whenIdle()
  await agent.close()
  const stored = (await store.open(id))!
  await stored.writer.close()
  return { header: stored.header, events: stored.events, putBacks }
}

/** The parent's log made by `ops`, and, with `fork`, its fork run on: the log compared. */
async function madeOf(ops: readonly Op[], fork: Fork | null): Promise<Made> {
  const store = memoryStore()
  const parent = await logOf(ops, store)
  if (fork === null) return parent
  const ended = parent.events.filter((event) => event.type === 'turn/end').length
  const afterTurn = fork.afterTurn === null ? undefined : fork.afterTurn % (ended + 1)
  await (await forkSession(store, 's', { id: 'f', ...(afterTurn === undefined ? {} : { afterTurn }) })).writer.close()
  return logOf(fork.ops, store, 'f')
}

/** Whether core's recovery owes a turn to the input pending in `events` cut after `seq` (a crash right after it). */
async function owedAfter(header: SessionHeader, events: readonly SessionEvent[], seq: number): Promise<boolean> {
  const store = memoryStore()
  const seed = header.seedLength === undefined ? {} : { parent: header.parent, seedLength: header.seedLength }
  await (await store.create({ id: 'cut', version: LOG_FORMAT_VERSION, createdAt: 1, ...seed }, events.slice(0, seq + 1))).writer.close()
  const agent = await createAgent({ model: scripted(), store, sessionId: 'cut' })
  const owed = agent.recovery.waiting !== undefined
  await agent.close()
  return owed
}

describe('host: the status index against core\'s recovery', () => {
  it('says idle after a splice into an idle log exactly when core would leave its input parked, and nothing after a put-back', async () => {
    /** Each splice compared: whether the index said idle after it. */
    const compared: boolean[] = []
    let putBacksSeen = 0
    let forks = 0
    /** Splices compared in forks, and in forks whose seed left input queued (the parent's pending at the cut). */
    let comparedInForks = 0
    let comparedAfterQueuedSeeds = 0
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), fc.option(fork), async (ops, forked) => {
        const { header, events, putBacks } = await madeOf(ops, forked)
        const seedLength = header.seedLength ?? 0
        if (seedLength > 0) forks++
        // As the host makes a stream's index: the seed's length from the header.
        const index = new StatusIndex(seedLength)
        for (const event of events) {
          const said = index.statusAfter(event)
          // Never idle after a splice right before a turn starts: what a plugin's wake after its put-back starts.
          if (said === 'idle' && event.type === 'agent/inbox/spliced') expect({ seq: event.seq, next: events[event.seq + 1]?.type }).not.toEqual({ seq: event.seq, next: 'turn/start' })
          // The seed's splices are the parent's: its stream said what they queued; the fork's queues start empty after them.
          if (event.type !== 'agent/inbox/spliced' || (event.data as { inserted: unknown[] }).inserted.length === 0 || event.seq < seedLength) continue
          // Running: a splice during a turn rides it or the driver's next (no frame, nothing to compare).
          if (said === undefined && runningAt(events, event.seq)) continue
          // Since a put-back after the last turn/end: its plugin may have woken the agent; the index waits for the turn.
          if (putBacks.some((seq) => seq <= event.seq && !endedBetween(events, seq, event.seq))) {
            putBacksSeen++
            expect({ seq: event.seq, said }).toEqual({ seq: event.seq, said: undefined })
            continue
          }
          compared.push(said === 'idle')
          if (seedLength > 0) comparedInForks++
          if (seedLength > 0 && seedQueued(events, seedLength)) comparedAfterQueuedSeeds++
          expect({ seq: event.seq, parked: said === 'idle' }).toEqual({ seq: event.seq, parked: !(await owedAfter(header, events, event.seq)) })
        }
      }),
      {
        numRuns: 300,
        examples: [
          // A follow-up queued behind a turn a Stop ended, then edited: queued again, parked.
          [[{ kind: 'followup' }, { kind: 'followup' }, { kind: 'stop' }, { kind: 'edit', at: 0 }], null],
          // The rate-limit plugin's requeue: a blocked turn's follow-up put back, then a wake — its turn starts.
          [[{ kind: 'block' }, { kind: 'followup' }, { kind: 'idle' }, { kind: 'putBack', wake: true }], null],
          // Put back without a wake, then an inject: nothing runs them.
          [[{ kind: 'block' }, { kind: 'followup' }, { kind: 'idle' }, { kind: 'putBack', wake: false }, { kind: 'inject' }], null],
          // Forked after turn 1 with a follow-up queued during it (claimed by turn 2, after the cut), then an inject and a follow-up in the fork.
          [[{ kind: 'followup' }, { kind: 'followup' }, { kind: 'idle' }], { afterTurn: 1, ops: [{ kind: 'inject' }, { kind: 'followup' }] }],
          // Forked at its last turn with an inject parked in the parent: the fork's inject waits, its follow-up runs both of its own.
          [[{ kind: 'followup' }, { kind: 'idle' }, { kind: 'inject' }], { afterTurn: null, ops: [{ kind: 'inject' }, { kind: 'idle' }, { kind: 'followup' }] }],
        ],
      },
    )
    // Both answers came up, often; and put-backs.
    expect(compared.filter(Boolean).length).toBeGreaterThan(10)
    expect(compared.filter((idle) => !idle).length).toBeGreaterThan(10)
    // Random runs make 4–15 of these (a bound of 5 failed a CI run); the two put-back examples make 3 on their own.
    expect(putBacksSeen).toBeGreaterThanOrEqual(3)
    expect(forks).toBeGreaterThan(30)
    expect(comparedInForks).toBeGreaterThan(20)
    // Random runs make 11–32 of these (1 run in ~1,000 would fall to 5); the two fork examples make
    // 2 on their own, so 3 asks at least one of a random run.
    expect(comparedAfterQueuedSeeds).toBeGreaterThanOrEqual(3)
  }, 240_000)
})

/** Whether a seed leaves input queued: its splices replayed, the parent's queues are not empty at its end. */
function seedQueued(events: readonly SessionEvent[], seedLength: number): boolean {
  const queues: Record<string, string[]> = { 'next-turn': [], 'next-step': [] }
  for (const event of events.slice(0, seedLength)) {
    if (event.type !== 'agent/inbox/spliced') continue
    const splice = event.data as { target: string; start: number; removedCount?: number; inserted: { id: string }[] }
    queues[splice.target]!.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted.map((message) => message.id))
  }
  return queues['next-turn']!.length + queues['next-step']!.length > 0
}

/** Whether a `turn/end` lies after `from` and at or before `to`. */
function endedBetween(events: readonly SessionEvent[], from: number, to: number): boolean {
  for (let i = from + 1; i <= to; i++) if (events[i]!.type === 'turn/end') return true
  return false
}

/** Whether the log is inside a turn at `seq` (its last boundary before it is a turn/start). */
function runningAt(events: readonly SessionEvent[], seq: number): boolean {
  for (let i = seq - 1; i >= 0; i--) {
    if (events[i]!.type === 'turn/start') return true
    if (events[i]!.type === 'turn/end') return false
  }
  return false
}
