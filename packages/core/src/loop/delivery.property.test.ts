import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { definePlugin } from '../plugin.js'
import { memoryStore } from '../store/memory.js'
import { tool } from '../testing/tools.js'
import type { InboxSplice } from '../inbox/types.js'
import type { BosunEventMap, SessionEvent } from '../session/events.js'
import type { Agent } from './agent.js'

// The loop's delivery rules as one property over random runs (seeds 000, 001, 003): input sent
// with followup / steer / inject at any point of a turn — from a session observer in the middle of
// an append, at the next await of the loop, or between turns — interleaved with aborts and
// cancels, with model answers that call tools or not; then the log cut at a random event (a crash:
// every prefix of an in-order log is a state a store can be left in) and the session reopened.
// Whatever happened, every message is delivered to the model at most once; after the reopened
// agent has drained its queues, every message was delivered once, canceled, or taken by a turn
// that was aborted before it reached a step (a Stop consumes it: seed 003 §8, claim is the commit
// point); a crash never consumes input. Turns and steps are paired and numbered in order, and
// follow-ups are claimed in the order they were sent, one per turn.

type Method = 'followup' | 'steer' | 'inject'
type How = 'observer' | 'microtask' | 'macrotask'
/** Fires when the `nth` event of this type is appended (counted from 1 over the live run). */
interface Anchor {
  type: string
  nth: number
}
type Op =
  | { kind: 'send'; method: Method; at: Anchor; how: How }
  | { kind: 'abort' | 'cancel' | 'wake'; at: Anchor; how: How }

const how = fc.constantFrom<How>('observer', 'microtask', 'macrotask')
const at: fc.Arbitrary<Anchor> = fc.record({
  type: fc.constantFrom('turn/start', 'agent/inbox/spliced', 'step/start', 'user/message', 'request/header', 'assistant/chunk', 'assistant/message', 'tool/call', 'tool/result', 'step/end', 'turn/end'),
  nth: fc.integer({ min: 1, max: 4 }),
})
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('send' as const), method: fc.constantFrom<Method>('followup', 'steer', 'inject'), at, how }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('abort' as const, 'cancel' as const, 'wake' as const), at, how }) },
)
const answer: fc.Arbitrary<ScriptedResponse> = fc.oneof(
  fc.record({ text: fc.constantFrom('ok', 'a longer answer'), chunkSize: fc.integer({ min: 1, max: 4 }) }),
  fc.integer({ min: 1, max: 2 }).map((calls): ScriptedResponse => ({ toolCalls: Array.from({ length: calls }, () => ({ name: 'echo' })) })),
)

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Runs `ops` against a live agent: each fires at its anchor event (or at idle, in order, for those the run never reached); returns the log's length at each abort or cancel. */
async function runLive(agent: Agent, ops: readonly Op[]): Promise<number[]> {
  let n = 0
  const aborts: number[] = []
  const fire = (o: Op) => {
    if (o.kind === 'send') agent[o.method](`m${n++}`)
    else if (o.kind === 'wake') agent.wake()
    else {
      aborts.push(agent.session.length)
      if (o.kind === 'abort') agent.abort('stop')
      else agent.cancel()
    }
  }
  const pending = ops.map((o, index) => ({ o, index, fired: false }))
  const fireLater = (p: (typeof pending)[number]) => {
    p.fired = true
    if (p.o.how === 'observer') fire(p.o)
    else if (p.o.how === 'microtask') queueMicrotask(() => fire(p.o))
    else setImmediate(() => fire(p.o))
  }
  const seen = new Map<string, number>()
  const off = agent.session.subscribe((event) => {
    const count = (seen.get(event.type) ?? 0) + 1
    seen.set(event.type, count)
    for (const p of pending) if (!p.fired && p.o.at.type === event.type && p.o.at.nth === count) fireLater(p)
  })
  try {
    agent.followup('first')
    for (const p of pending) {
      await agent.whenIdle()
      await nextMacrotask() // a macrotask-fired op of the last turn has run
      if (!p.fired) {
        p.fired = true
        fire(p.o)
      }
    }
    await agent.whenIdle()
    await nextMacrotask()
    await agent.whenIdle()
  } finally {
    off()
  }
  return aborts
}

/** Wakes the agent until both queues are empty (input parked by an abort or a cut waits for a wake). */
async function drain(agent: Agent): Promise<void> {
  for (let i = 0; i < 50 && (agent.inbox.nextTurn.length > 0 || agent.inbox.nextStep.length > 0); i++) {
    agent.wake()
    await agent.whenIdle()
  }
  expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual([])
  expect(agent.inbox.nextStep.map((m) => m.id)).toEqual([])
}

/**
 * Replays the log's inbox and loop events and checks every rule above. `aborts`: the log's length
 * at each abort() or cancel() of the live agent — from there on its turn claims nothing and opens
 * no step (seed 000: queued input stays for the next turn's first claim).
 */
function checkLog(events: readonly SessionEvent[], aborts: readonly number[] = []): void {
  const queues: Record<string, string[]> = { 'next-turn': [], 'next-step': [] }
  const firstInserted = new Map<string, number>()
  const claimedIn = new Map<string, number>()
  const delivered = new Map<string, number>()
  const canceled = new Set<string>()
  /** Claimed input a pre-step rejected: consumed, not put back (seed 003 §8, "claim 是提交点"). */
  const rejected = new Set<string>()
  const nextTurnClaims: string[] = []
  /** next-step input queued while a turn was open: the turn it landed in, and where. */
  const landedIn = new Map<string, { turn: number; seq: number }>()
  /** Each turn's last step boundary: the seq of its last `step/end`. */
  const lastStepEnd = new Map<number, number>()
  const deliveredIn = new Map<string, number>()
  const turnEnd = new Map<number, string>()
  let openTurn: number | undefined
  let lastTurn = 0
  let openStep: number | undefined
  let lastStep = 0
  let movedOut: string[] = []
  let claimsThisTurn = 0
  let turnStartSeq = -1
  /** Whether the open turn was aborted before this event was appended. */
  const abortedBefore = (seq: number) => aborts.some((length) => length > turnStartSeq && length <= seq)
  for (const event of events) {
    const data = event.data as never
    switch (event.type) {
      case 'agent/inbox/spliced': {
        const splice = data as InboxSplice
        const queue = queues[splice.target]!
        const removed = queue.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted.map((m) => m.id))
        for (const m of splice.inserted) {
          if (splice.target === 'next-step' && openTurn !== undefined && !landedIn.has(m.id)) landedIn.set(m.id, { turn: openTurn, seq: event.seq })
          if (!firstInserted.has(m.id)) firstInserted.set(m.id, firstInserted.size)
          else if (movedOut.includes(m.id)) movedOut = movedOut.filter((id) => id !== m.id)
          else {
            // The one way back in: a requeue of input claimed and never stepped.
            expect(claimedIn.has(m.id), `${m.id} inserted again without a claim`).toBe(true)
            expect(delivered.get(m.id) ?? 0, `${m.id} requeued after it was delivered`).toBe(0)
            expect(rejected.has(m.id), `${m.id} requeued after a pre-step rejected it`).toBe(false)
            claimedIn.delete(m.id)
          }
        }
        if (splice.outcome === 'canceled') for (const id of removed) canceled.add(id)
        else if (splice.outcome === 'moved') movedOut.push(...removed)
        else if (removed.length > 0) {
          expect(openTurn, 'a claim outside a turn').toBeDefined()
          expect(abortedBefore(event.seq), `turn ${openTurn} claimed ${removed.join(', ')} after its abort`).toBe(false)
          for (const id of removed) claimedIn.set(id, openTurn!)
          if (splice.target === 'next-turn') {
            claimsThisTurn += removed.length
            for (const id of removed) if (!nextTurnClaims.includes(id)) nextTurnClaims.push(id)
          }
        }
        break
      }
      case 'turn/start': {
        const { turn } = data as BosunEventMap['turn/start']
        expect(openTurn, `turn ${turn} opened inside turn ${openTurn}`).toBeUndefined()
        expect(turn).toBe(lastTurn + 1)
        openTurn = lastTurn = turn
        turnStartSeq = event.seq
        lastStep = 0
        claimsThisTurn = 0
        break
      }
      case 'turn/end': {
        const { turn, reason } = data as BosunEventMap['turn/end']
        expect(turn).toBe(openTurn)
        expect(openStep, `turn ${turn} ended inside step ${openStep}`).toBeUndefined()
        expect(claimsThisTurn, `turn ${turn} took ${claimsThisTurn} next-turn messages`).toBeLessThanOrEqual(1)
        turnEnd.set(turn, reason.kind)
        openTurn = undefined
        break
      }
      case 'step/start': {
        const { turn, step } = data as BosunEventMap['step/start']
        expect(turn).toBe(openTurn)
        expect(openStep).toBeUndefined()
        expect(step).toBe(lastStep + 1)
        expect(abortedBefore(event.seq), `turn ${turn} opened step ${step} after its abort`).toBe(false)
        openStep = lastStep = step
        break
      }
      case 'step/end': {
        const { step } = data as BosunEventMap['step/end']
        expect(step).toBe(openStep)
        openStep = undefined
        lastStepEnd.set(openTurn!, event.seq)
        break
      }
      case 'agent/pre-step/rejected':
        for (const [id, turn] of claimedIn) if (turn === openTurn && !delivered.has(id)) rejected.add(id)
        break
      case 'user/message': {
        const { id } = data as BosunEventMap['user/message']
        expect(openStep, `${id} delivered outside a step`).toBeDefined()
        expect(claimedIn.get(id), `${id} delivered in turn ${openTurn} without its claim`).toBe(openTurn)
        expect(canceled.has(id), `${id} delivered after it was canceled`).toBe(false)
        delivered.set(id, (delivered.get(id) ?? 0) + 1)
        deliveredIn.set(id, openTurn!)
        expect(delivered.get(id), `${id} delivered twice`).toBe(1)
        break
      }
    }
  }
  expect(openTurn, 'the log ends inside a turn').toBeUndefined()
  // Follow-ups (and waking sends redirected after an abort) are claimed in the order they were queued.
  const order = nextTurnClaims.map((id) => firstInserted.get(id)!)
  expect(order).toEqual([...order].sort((a, b) => a - b))
  const pending = new Set([...queues['next-turn']!, ...queues['next-step']!])
  // A steer or inject that lands before a turn's last step boundary rides a step of that turn when
  // the turn completes (seed 000: a steer "不开新 turn，但确保被处理"; seed 003 §7). One that lands
  // after it (after the last step/end, before turn/end) rides the next turn: docs/architecture.md.
  for (const [id, { turn, seq }] of landedIn) {
    const boundary = lastStepEnd.get(turn)
    if (turnEnd.get(turn) !== 'completed' || boundary === undefined || seq > boundary || canceled.has(id)) continue
    expect(deliveredIn.get(id), `${id}, queued in turn ${turn} before its last step boundary`).toBe(turn)
  }
  for (const id of firstInserted.keys()) {
    if (delivered.get(id) === 1 || canceled.has(id) || pending.has(id) || rejected.has(id)) continue
    const turn = claimedIn.get(id)
    expect(turn, `${id} neither delivered, canceled nor claimed`).toBeDefined()
    expect(turnEnd.get(turn!), `${id} claimed in turn ${turn} and never delivered`).toBe('aborted')
  }
}

/**
 * With `preSteps` (one decision per step, cycled): a pre-step plugin that waits a macrotask and
 * enters or rejects, and a system prompt function that waits too — the await points where an abort
 * can land between a claim and its step.
 */
function agentOn(store: ReturnType<typeof memoryStore>, sessionId: string, answers: readonly ScriptedResponse[], preSteps?: readonly ('enter' | 'reject')[]) {
  let request = 0
  const model = scripted({ responses: Array.from({ length: 400 }, () => () => answers[request++ % answers.length]!) })
  const echo = tool('echo', async () => {
    await nextMacrotask()
    return 'echoed'
  })
  if (preSteps === undefined) return createAgent({ model, store, sessionId, tools: [echo], logPages: false })
  let step = 0
  const gatekeeper = definePlugin({
    name: 'gatekeeper',
    setup({ hooks }) {
      hooks.preStep.tapPromise('gatekeeper', async (decision) => {
        await nextMacrotask()
        return preSteps[step++ % preSteps.length] === 'reject' ? { kind: 'reject', by: 'gatekeeper', metadata: null } : decision
      })
    },
  })
  const system = async () => {
    await Promise.resolve()
    return 'You are a test.'
  }
  return createAgent({ model, store, sessionId, tools: [echo], plugins: [gatekeeper], system, logPages: false })
}

describe('delivery: every message reaches the model at most once, and after a drain exactly once unless canceled or stopped', () => {
  it('holds for random sends, aborts and cancels at any point, and for a crash at any event', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 14 }), fc.array(answer, { minLength: 1, maxLength: 4 }), fc.nat(), async (ops, answers, cutAt) => {
        await runAndCrash(ops, answers, cutAt)
      }),
      { numRuns: 100 },
    )
  })

  it('holds with a slow pre-step that may reject, a slow system prompt and model errors', { timeout: 120_000 }, async () => {
    const withErrors = fc.oneof({ weight: 4, arbitrary: answer }, { weight: 1, arbitrary: fc.constant<ScriptedResponse>({ text: 'half', error: { status: 503 } }) })
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 14 }), fc.array(withErrors, { minLength: 1, maxLength: 4 }), fc.nat(),
        fc.array(fc.constantFrom<'enter' | 'reject'>('enter', 'enter', 'reject'), { minLength: 1, maxLength: 4 }),
        async (ops, answers, cutAt, preSteps) => {
          await runAndCrash(ops, answers, cutAt, preSteps)
        },
      ),
      { numRuns: 200 },
    )
  })
})

async function runAndCrash(ops: readonly Op[], answers: readonly ScriptedResponse[], cutAt: number, preSteps?: readonly ('enter' | 'reject')[]): Promise<void> {
  const store = memoryStore()
  const live = await agentOn(store, 'live', answers, preSteps)
  const aborts = await runLive(live, ops)
  const full = live.session.events.slice()
  const header = live.session.header
  await live.close()
  checkLog(full, aborts)

  // A crash: the log cut after a random event, the session reopened from that prefix.
  const cut = cutAt % (full.length + 1)
  const crashed = memoryStore()
  await crashed.create({ ...header, id: 'cut' }, full.slice(0, cut))
  const reopened = await agentOn(crashed, 'cut', answers, preSteps)
  await drain(reopened)
  const after = reopened.session.events.slice()
  await reopened.close()
  checkLog(after)
  // Nothing the cut log had delivered is delivered again, and nothing it held is lost (above).
  expect(after.slice(0, cut)).toEqual(full.slice(0, cut))
}
