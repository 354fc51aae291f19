// Test-only (excluded from the build): the loop's delivery rules as a property over random runs
// (seeds 000, 001, 003), for the core's own test (loop/delivery.property.test.ts) and for plugins
// that claim, reject, requeue or delay input (rate-limit). Input sent with followup / steer /
// inject at any point of a turn — from a session observer in the middle of an append, at the next
// await of the loop, or between turns — interleaved with aborts, cancels and wakes; then the log
// cut at a random event and the session reopened. Whatever happened, every message is delivered
// to the model at most once; after the reopened agent has drained its queues, every message was
// delivered once, canceled, rejected by a pre-step, or taken by a turn that was aborted before it
// reached a step (a Stop consumes it: seed 003 §8, claim is the commit point); a crash never
// consumes input. Turns and steps are paired and numbered in order; follow-ups are claimed in the
// order they were sent, one per turn; an aborted turn claims nothing and opens no step after its
// abort; a steer or inject queued before a completed turn's last step boundary rides that turn.
// The reopened agent's recovery report says what the live agent did at the cut (checkRecovery).
import { expect } from 'vitest'
import fc from 'fast-check'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import type { InboxSplice } from '../inbox/types.js'
import type { Agent } from '../loop/agent.js'
import type { BosunEventMap, SessionEvent } from '../session/events.js'
import { memoryStore } from '../store/memory.js'

export type Method = 'followup' | 'steer' | 'inject'
export type How = 'observer' | 'microtask' | 'macrotask'
/** Fires when the `nth` event of this type is appended (counted from 1 over the live run). */
export interface Anchor {
  type: string
  nth: number
}
export type Op =
  | { kind: 'send'; method: Method; at: Anchor; how: How }
  | { kind: 'abort' | 'cancel' | 'wake'; at: Anchor; how: How }
  /** Something a plugin adds (agent.compact()): the run's `custom[name]` does it. */
  | { kind: 'custom'; name: string; at: Anchor; how: How }

const how = fc.constantFrom<How>('observer', 'microtask', 'macrotask')
const at: fc.Arbitrary<Anchor> = fc.record({
  type: fc.constantFrom('turn/start', 'agent/inbox/spliced', 'step/start', 'user/message', 'request/header', 'assistant/chunk', 'assistant/message', 'tool/call', 'tool/result', 'step/end', 'turn/end'),
  nth: fc.integer({ min: 1, max: 4 }),
})
/** One thing done to the live agent, at an anchor event. */
export const deliveryOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('send' as const), method: fc.constantFrom<Method>('followup', 'steer', 'inject'), at, how }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('abort' as const, 'cancel' as const, 'wake' as const), at, how }) },
)
/** A model answer: text in 1–4 character chunks, or 1–2 calls of the `echo` tool. */
export const deliveryAnswer: fc.Arbitrary<ScriptedResponse> = fc.oneof(
  fc.record({ text: fc.constantFrom('ok', 'a longer answer'), chunkSize: fc.integer({ min: 1, max: 4 }) }),
  fc.integer({ min: 1, max: 2 }).map((calls): ScriptedResponse => ({ toolCalls: Array.from({ length: calls }, () => ({ name: 'echo' })) })),
)

/** An op fired at the live agent: its kind (a send's method), the log's length then (it came after event `at - 1`), and whether the agent's driver was running. */
interface Fired {
  kind: Op['kind']
  method?: Method
  at: number
  running: boolean
}

export const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Runs `ops` against a live agent: each fires at its anchor event (or at idle, in order, for those
 * the run never reached). Returns the log's length at each abort or cancel, and at every op fired
 * (the first follow-up included): what the agent was told, and when, that its log may not show.
 */
async function runLive(agent: Agent, ops: readonly Op[], custom: DeliveryRun['custom'] = {}): Promise<{ aborts: number[]; fired: Fired[] }> {
  let n = 0
  const aborts: number[] = []
  const fired: Fired[] = []
  const fire = (o: Op) => {
    fired.push({ kind: o.kind, at: agent.session.length, running: agent.status === 'running', method: o.kind === 'send' ? o.method : undefined })
    if (o.kind === 'send') agent[o.method](`m${n++}`)
    else if (o.kind === 'wake') agent.wake()
    else if (o.kind === 'custom') custom[o.name]!(agent)
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
    fired.push({ kind: 'send', at: agent.session.length, running: false, method: 'followup' })
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
  return { aborts, fired }
}

/** Wakes the agent until both queues are empty (input parked by an abort or a cut waits for a wake). */
export async function drain(agent: Agent): Promise<void> {
  for (let i = 0; i < 50 && (agent.inbox.nextTurn.length > 0 || agent.inbox.nextStep.length > 0); i++) {
    agent.wake()
    await agent.whenIdle()
  }
  expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual([])
  expect(agent.inbox.nextStep.map((m) => m.id)).toEqual([])
}

/**
 * Replays the log's inbox and loop events and checks every delivery rule (header). `aborts`: the log's length
 * at each abort() or cancel() of the live agent — from there on its turn claims nothing and opens
 * no step (seed 000: queued input stays for the next turn's first claim).
 */
export function checkDelivery(events: readonly SessionEvent[], options: { aborts?: readonly number[]; givenBack?: ReadonlySet<string> } = {}): void {
  const aborts = options.aborts ?? []
  const givenBack = options.givenBack ?? new Set<string>()
  const queues: Record<string, string[]> = { 'next-turn': [], 'next-step': [] }
  const firstInserted = new Map<string, number>()
  const claimedIn = new Map<string, number>()
  const delivered = new Map<string, number>()
  const canceled = new Set<string>()
  /** Claimed input a pre-step rejected: consumed, not put back (seed 003 §8, "claim 是提交点"). */
  const rejected = new Set<string>()
  const nextTurnClaims: string[] = []
  /** Ids first queued in next-turn (a follow-up; a waking send after an abort): FIFO among themselves. */
  const queuedForTurn = new Set<string>()
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
  let previous: SessionEvent | undefined
  let previousWasClaim = false
  let claimStartSeq = -1
  for (const event of events) {
    const data = event.data as never
    let claimNow = false
    switch (event.type) {
      case 'agent/inbox/spliced': {
        const splice = data as InboxSplice
        const queue = queues[splice.target]!
        const removed = queue.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted.map((m) => m.id))
        for (const m of splice.inserted) {
          if (splice.target === 'next-step' && openTurn !== undefined && !landedIn.has(m.id)) landedIn.set(m.id, { turn: openTurn, seq: event.seq })
          if (!firstInserted.has(m.id)) {
            firstInserted.set(m.id, firstInserted.size)
            if (splice.target === 'next-turn') queuedForTurn.add(m.id)
          }
          else if (movedOut.includes(m.id)) movedOut = movedOut.filter((id) => id !== m.id)
          else {
            // The one way back in: a requeue of input claimed and never stepped.
            expect(claimedIn.has(m.id), `${m.id} inserted again without a claim`).toBe(true)
            expect(delivered.get(m.id) ?? 0, `${m.id} requeued after it was delivered`).toBe(0)
            expect(rejected.has(m.id) && !givenBack.has(m.id), `${m.id} requeued after a pre-step rejected it`).toBe(false)
            rejected.delete(m.id)
            claimedIn.delete(m.id)
          }
        }
        if (splice.outcome === 'canceled') for (const id of removed) canceled.add(id)
        else if (splice.outcome === 'moved') movedOut.push(...removed)
        else if (removed.length > 0) {
          expect(openTurn, 'a claim outside a turn').toBeDefined()
          // A claim is one act, next-step then next-turn (seed 001 §claim): two pure deletions back
          // to back. An abort from an observer of the first lands inside it, not before it.
          const claimStart = previous?.type === 'agent/inbox/spliced' && previousWasClaim ? claimStartSeq : event.seq
          claimStartSeq = claimStart
          claimNow = true
          expect(abortedBefore(claimStart), `turn ${openTurn} claimed ${removed.join(', ')} after its abort`).toBe(false)
          for (const id of removed) claimedIn.set(id, openTurn!)
          if (splice.target === 'next-turn') {
            claimsThisTurn += removed.length
            for (const id of removed) if (queuedForTurn.has(id) && !nextTurnClaims.includes(id)) nextTurnClaims.push(id)
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
    previous = event
    previousWasClaim = claimNow
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

/** What a run needs: an agent on `store` for `sessionId` (the live one, then the one reopened after the cut). */
export type MakeAgent = (store: ReturnType<typeof memoryStore>, sessionId: string) => Promise<Agent>

/** `deliveryOp`s, and sometimes one of these plugin operations (see {@link DeliveryRun.custom}). */
export function deliveryOpWith(names: readonly string[]): fc.Arbitrary<Op> {
  return fc.oneof(
    { weight: 8, arbitrary: deliveryOp },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('custom' as const), name: fc.constantFrom(...names), at, how }) },
  )
}

export interface DeliveryRun {
  /** What each `custom` op does to the live agent, by name (errors it rejects with are the plugin's to report: caught). */
  custom?: Record<string, (agent: Agent) => void>
  /** Waits for work a plugin still owes after the queues are empty (a requeue timer), before the final drain. */
  settle?: (agent: Agent) => Promise<void>
  /** Ids a plugin logged as given back after its reject (rate-limit's requeue): they may return to a queue. */
  givenBack?: (events: readonly SessionEvent[]) => ReadonlySet<string>
}

/**
 * Runs `ops` on a live agent, checks its log, then cuts the log after event `cutAt % (length + 1)`
 * (a crash: every prefix of an in-order log is a state a store can be left in), reopens the
 * session, drains it and checks the whole log again.
 */
export async function runAndCrash(makeAgent: MakeAgent, ops: readonly Op[], cutAt: number, run: DeliveryRun = {}): Promise<void> {
  const store = memoryStore()
  const live = await makeAgent(store, 'live')
  const { aborts, fired } = await runLive(live, ops, run.custom)
  if (run.settle) await run.settle(live)
  const full = live.session.events.slice()
  const header = live.session.header
  await live.close()
  checkDelivery(full, { aborts, givenBack: run.givenBack?.(full) })

  const cut = cutAt % (full.length + 1)
  const crashed = memoryStore()
  await crashed.create({ ...header, id: 'cut' }, full.slice(0, cut))
  const reopened = await makeAgent(crashed, 'cut')
  checkRecovery(reopened, full, cut, fired)
  await drain(reopened)
  if (run.settle) {
    await run.settle(reopened)
    await drain(reopened)
  }
  const after = reopened.session.events.slice()
  await reopened.close()
  checkDelivery(after, { givenBack: run.givenBack?.(after) })
  // Nothing the cut log had delivered is delivered again, and nothing it held is lost (above).
  expect(after.slice(0, cut)).toEqual(full.slice(0, cut))
}

/**
 * What reopening the cut log owes (SPEC §10 "Restart"; seed 003 recovery): a turn the cut left open
 * is repaired (`recovery.turn`: its owner wakes it); a log cut between turns says a wake is owed
 * (`recovery.waiting`, the whole queue in order) exactly when the live agent, left alone, ran
 * another turn after that point — its log shows a `turn/start` after the cut with nothing done to
 * the agent in between. Skipped when the log cannot tell: an op fired from the cut up to that
 * `turn/start`, or input spliced in since the last turn's end by no send (a plugin's requeue
 * timer, which wakes the agent itself); a `wake()` latched during the
 * last turn; an abort or cancel the log does not show — fired with no turn open (between a send
 * and its turn's start: the driver parks without a trace) or in a turn that still did not end
 * `aborted` (after its last step); an inject landing after a turn's end while the driver still
 * runs. Each is a window of microtasks: no request from outside the process lands inside one, and
 * a store writes a tick's events as one batch, so no real crash falls inside one either.
 */
function checkRecovery(reopened: Agent, full: readonly SessionEvent[], cut: number, fired: readonly Fired[]): void {
  // For each log length, the turn open there (its turn/start index) or -1; and each turn's end.
  const openAt: number[] = [-1]
  const endOf = new Map<number, string>()
  let open = -1
  for (let i = 0; i < full.length; i++) {
    const event = full[i]!
    if (event.type === 'turn/start') open = i
    else if (event.type === 'turn/end') {
      endOf.set(open, (event.data as BosunEventMap['turn/end']).reason.kind)
      open = -1
    }
    openAt.push(open)
  }
  const { recovery } = reopened
  if (openAt[cut]! >= 0) {
    expect(recovery.turn, `the log cut at ${cut} inside a turn was not repaired`).toBeDefined()
    return
  }
  expect(recovery.turn, `the log cut at ${cut} between turns was repaired`).toBeUndefined()
  let next = full.length
  for (let i = cut; i < full.length; i++) {
    if (full[i]!.type === 'turn/start') {
      next = i
      break
    }
  }
  let lastStart = -1
  for (let i = cut - 1; i >= 0 && lastStart < 0; i--) if (full[i]!.type === 'turn/start') lastStart = i
  const unlogged = (f: Fired) =>
    (f.kind === 'wake' && f.at > lastStart && f.at < cut) ||
    ((f.kind === 'abort' || f.kind === 'cancel') && f.at < cut && (openAt[f.at]! < 0 || endOf.get(openAt[f.at]!) !== 'aborted'))
  // An inject after a turn's end that the driver, still running, finds before it stops: it runs a
  // turn, which an inject at idle does not — the log cannot tell the two moments apart.
  const caughtByDriver = (f: Fired) => f.method === 'inject' && f.running && f.at < cut && openAt[f.at]! < 0
  if (fired.some((f) => (f.at >= cut && f.at <= next) || unlogged(f) || caughtByDriver(f))) return
  // Input spliced in after the last turn's end by no send of the run: a plugin's (a requeue timer's),
  // which may wake the agent without the log saying so.
  let lastEnd = -1
  for (let i = cut - 1; i >= 0 && lastEnd < 0; i--) if (full[i]!.type === 'turn/end') lastEnd = i
  const sentAt = new Set(fired.filter((f) => f.kind === 'send').map((f) => f.at))
  for (let i = lastEnd + 1; i < next; i++) {
    const event = full[i]!
    if (event.type === 'agent/inbox/spliced' && (event.data as InboxSplice).inserted.length > 0 && (i >= cut || !sentAt.has(i))) return
  }
  const pending = [...reopened.inbox.nextStep, ...reopened.inbox.nextTurn].map((m) => m.id)
  const ranOn = next < full.length
  const around = full.slice(Math.max(0, cut - 4), cut + 1).map((e) => `${e.seq} ${e.type} ${JSON.stringify(e.data).slice(0, 120)}`).join('\n')
  expect(recovery.waiting, `cut at ${cut}: the live agent ${ranOn ? 'ran on' : 'stopped'} with ${JSON.stringify(pending)} pending, recovery says waiting ${JSON.stringify(recovery.waiting)}; the log there:\n${around}`)
    .toEqual(ranOn ? pending : undefined)
}
