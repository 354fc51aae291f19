import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createUserMessage, type SessionEvent, type UserMessage } from '@bosun/core'
import { messageState } from '../src/log.js'
import { MessageIndex } from '../src/message-index.js'

type Lane = 'next-turn' | 'next-step'

/** What a session does to its log, as the agent, the host's queue routes and recovery write it. */
type Op =
  | { kind: 'send'; lane: Lane }
  | { kind: 'resend'; lane: Lane; pick: number } // an id admitted before, spliced in again (a plugin may)
  | { kind: 'promote'; pick: number }
  | { kind: 'edit'; lane: Lane; pick: number }
  | { kind: 'remove'; lane: Lane; pick: number }
  | { kind: 'reorder'; canceled: boolean }
  | { kind: 'cancel'; keepInbox: boolean }
  | { kind: 'start'; claim: number }
  | { kind: 'steer' } // the open turn takes next-step at a step boundary
  | { kind: 'step'; pick: number; derived: boolean }
  | { kind: 'reject'; end: string | undefined }
  | { kind: 'end'; end: string }
  | { kind: 'crash' } // the stored log left with its turn open, reopened: recovery closes it and re-queues
  | { kind: 'restart' } // a turn/start over an open turn (a log cut without recovery)
  | { kind: 'query'; pick: number }
  | { kind: 'feedGap' } // the subscription misses events: the next request catches up

const lane = fc.constantFrom<Lane>('next-turn', 'next-step')
const pick = fc.nat(30)
const ends = fc.constantFrom('completed', 'aborted', 'failed', 'interrupted')
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: lane.map((l) => ({ kind: 'send' as const, lane: l })), weight: 6 },
  { arbitrary: fc.record({ lane, pick }).map((r) => ({ kind: 'resend' as const, ...r })), weight: 2 },
  { arbitrary: pick.map((p) => ({ kind: 'promote' as const, pick: p })), weight: 2 },
  { arbitrary: fc.record({ lane, pick }).map((r) => ({ kind: 'edit' as const, ...r })), weight: 2 },
  { arbitrary: fc.record({ lane, pick }).map((r) => ({ kind: 'remove' as const, ...r })), weight: 2 },
  { arbitrary: fc.boolean().map((c) => ({ kind: 'reorder' as const, canceled: c })), weight: 1 },
  { arbitrary: fc.boolean().map((k) => ({ kind: 'cancel' as const, keepInbox: k })), weight: 1 },
  { arbitrary: fc.nat(3).map((n) => ({ kind: 'start' as const, claim: n })), weight: 4 },
  { arbitrary: fc.constant({ kind: 'steer' as const }), weight: 2 },
  { arbitrary: fc.record({ pick, derived: fc.boolean() }).map((r) => ({ kind: 'step' as const, ...r })), weight: 4 },
  { arbitrary: fc.option(ends, { nil: undefined }).map((e) => ({ kind: 'reject' as const, end: e })), weight: 2 },
  { arbitrary: ends.map((e) => ({ kind: 'end' as const, end: e })), weight: 3 },
  { arbitrary: fc.constant({ kind: 'crash' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'restart' as const }), weight: 1 },
  { arbitrary: pick.map((p) => ({ kind: 'query' as const, pick: p })), weight: 4 },
  { arbitrary: fc.constant({ kind: 'feedGap' as const }), weight: 1 },
)

/** A log written op by op, with the queues, the open turn and its claims the writer keeps. */
class Log {
  readonly events: SessionEvent[] = []
  readonly queues: Record<Lane, UserMessage[]> = { 'next-turn': [], 'next-step': [] }
  readonly ids: string[] = []
  turn = 0
  open = false
  claimed: UserMessage[] = []
  #n = 0
  /** Called with each appended event (the session's subscription). */
  observer: ((event: SessionEvent) => void) | undefined

  get length(): number {
    return this.events.length
  }
  eventAt(seq: number): SessionEvent | undefined {
    return this.events[seq]
  }
  append(type: string, data: unknown): void {
    const event = Object.freeze({ seq: this.events.length, time: 0, type, data }) as SessionEvent
    this.events.push(event)
    this.observer?.(event)
  }
  message(id = `m${this.#n++}`): UserMessage {
    if (!this.ids.includes(id)) this.ids.push(id)
    return createUserMessage(`text ${this.#n++}`, { id, source: { kind: 'user', delivery: 'followup' } })
  }
  splice(target: Lane, start: number, removedCount: number, inserted: UserMessage[], outcome?: 'canceled' | 'moved'): UserMessage[] {
    const removed = this.queues[target].splice(start, removedCount, ...inserted)
    this.append('agent/inbox/spliced', { target, start, ...(removedCount > 0 ? { removedCount } : {}), inserted, ...(outcome ? { outcome } : {}) })
    return removed
  }
  endTurn(kind: string): void {
    this.append('turn/end', { turn: this.turn, reason: { kind } })
    this.open = false
    this.claimed = []
  }

  run(o: Op): void {
    const q = this.queues
    switch (o.kind) {
      case 'send':
        this.splice(o.lane, q[o.lane].length, 0, [this.message()])
        break
      case 'resend':
        if (this.ids.length > 0) this.splice(o.lane, q[o.lane].length, 0, [this.message(this.ids[o.pick % this.ids.length])])
        break
      case 'promote': {
        const from = q['next-turn']
        if (from.length === 0) break
        const [moved] = this.splice('next-turn', o.pick % from.length, 1, [], 'moved')
        this.splice('next-step', q['next-step'].length, 0, [moved!])
        break
      }
      case 'edit':
        if (q[o.lane].length > 0) {
          const i = o.pick % q[o.lane].length
          this.splice(o.lane, i, 1, [this.message(q[o.lane][i]!.id)], 'canceled')
        }
        break
      case 'remove':
        if (q[o.lane].length > 0) this.splice(o.lane, o.pick % q[o.lane].length, 1, [], 'canceled')
        break
      case 'reorder':
        if (q['next-turn'].length > 1) this.splice('next-turn', 0, q['next-turn'].length, [...q['next-turn']].reverse(), o.canceled ? 'canceled' : undefined)
        break
      case 'cancel':
        if (this.open) this.endTurn('aborted')
        for (const l of ['next-step', 'next-turn'] as const) if (!o.keepInbox && q[l].length > 0) this.splice(l, 0, q[l].length, [], 'canceled')
        break
      case 'start':
        if (this.open) break
        this.append('turn/start', { turn: ++this.turn })
        this.open = true
        this.claimed = [...this.splice('next-step', 0, q['next-step'].length, []), ...this.splice('next-turn', 0, Math.min(o.claim, q['next-turn'].length), [])]
        break
      case 'steer':
        if (this.open && q['next-step'].length > 0) this.claimed.push(...this.splice('next-step', 0, q['next-step'].length, []))
        break
      case 'step': {
        if (!this.open || this.claimed.length === 0) break
        const [taken] = this.claimed.splice(o.pick % this.claimed.length, 1)
        // A pre-step may rewrite claimed input under a new id that names what it came from.
        const delivered = o.derived ? createUserMessage('rewritten', { id: `d${this.events.length}`, source: { kind: 'user', delivery: 'followup', derivedFrom: [taken!.id] } }) : taken!
        this.append('user/message', delivered)
        break
      }
      case 'reject':
        if (!this.open) break
        this.append('agent/pre-step/rejected', { turn: this.turn, by: 'policy', metadata: { retryAfterMs: this.events.length } })
        // Without an end the turn goes on (a second reject of one turn: the first is the answer).
        if (o.end !== undefined) this.endTurn(o.end)
        break
      case 'end':
        if (this.open) this.endTurn(o.end)
        break
      case 'crash': {
        if (!this.open) break
        const requeue = this.claimed
        this.endTurn('interrupted')
        if (requeue.length > 0) this.splice('next-turn', 0, 0, requeue)
        break
      }
      case 'restart':
        if (!this.open) break
        this.append('turn/start', { turn: ++this.turn })
        this.claimed = []
        break
    }
  }
}

/**
 * A log a fork copied: the parent's events before the seed's end — rejects of its turns, a
 * message still queued there, messages the child never admitted. Its turns are numbered from 1
 * again after the seed when `renumber` (so a seed's reject names a turn of the child too).
 */
function seed(log: Log, n: number, renumber: boolean): string[] {
  for (let i = 0; i < n; i++) {
    log.run({ kind: 'send', lane: 'next-turn' })
    log.run({ kind: 'send', lane: 'next-step' })
    log.run({ kind: 'start', claim: 1 })
    log.run({ kind: 'reject', end: 'completed' })
  }
  const parents = log.ids.splice(0)
  log.queues['next-turn'].length = 0
  log.queues['next-step'].length = 0
  if (renumber) log.turn = 0
  return parents
}

const statusJson = (value: unknown): string => JSON.stringify(value) ?? 'undefined'

describe('MessageIndex', () => {
  it('answers every message as messageState folds it from the whole log, built at any point and fed event by event (property)', () => {
    fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 100 }), fc.nat(100), fc.nat(2), fc.boolean(), (ops, buildAt, seeded, renumber) => {
      const log = new Log()
      const parents = seed(log, seeded, renumber)
      const seedLength = log.length
      let index: MessageIndex | undefined
      let fed = true
      log.observer = (event) => {
        if (fed) index?.apply(event)
      }
      const check = (ids: string[]): void => {
        if (!index) return
        index.catchUp(log)
        fed = true
        for (const id of [...ids, 'never-admitted']) expect(statusJson(index.status(id)), `${id} after ${log.length} events`).toBe(statusJson(messageState(log.events, id, seedLength)))
      }
      for (const [i, o] of ops.entries()) {
        if (i === Math.min(buildAt, ops.length - 1)) index = MessageIndex.build(log, seedLength)
        if (o.kind === 'feedGap') fed = false
        else if (o.kind === 'query') check(log.ids.length > 0 ? [log.ids[o.pick % log.ids.length]!] : [])
        else log.run(o)
      }
      check([...log.ids, ...parents])
      expect(index!.broken).toBe(false)
    }), {
      numRuns: 1000,
      examples: [
        // Delivered, spliced in again and claimed again by the same open turn: delivered, as foldConsumedWork's stepped says.
        [[{ kind: 'send', lane: 'next-turn' }, { kind: 'start', claim: 1 }, { kind: 'step', pick: 0, derived: false }, { kind: 'resend', lane: 'next-step', pick: 0 }, { kind: 'steer' }], 0, 0, false],
      ],
    })
  })

  it('gives up on a log it cannot read, and says so (the route folds the whole log then)', () => {
    const log = new Log()
    log.run({ kind: 'send', lane: 'next-turn' })
    const index = MessageIndex.build(log)
    log.append('agent/inbox/spliced', { target: 'next-turn', start: 0 })
    index.catchUp(log)
    expect(index.broken).toBe(true)
  })
})
