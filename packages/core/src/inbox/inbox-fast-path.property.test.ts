import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { BosunError } from '../errors.js'
import { Session } from '../session/session.js'
import type { SessionEvent } from '../session/events.js'
import { msg } from '../testing/harness.js'
import { ids } from '../testing/inbox-fixtures.js'
import { Inbox } from './inbox.js'
import type { InboxSplice, InboxTarget } from './types.js'

// The inbox's own writes check only the messages they insert: their target comes from a public
// method's check (or #where, or a constant) and their coordinates are normalised where the splice
// is built. Replay checks every persisted splice in full (target, bounds, messages). This property
// holds the two together: every splice the live (fast) path logs, replayed through the validated
// path one event at a time, is accepted, is within the bounds of the queue it was made on, and
// rebuilds the live queues exactly — and a write the fast path refuses logs nothing.

type Op =
  | { kind: 'splice'; target: InboxTarget; start: number; deleteCount: number; ids: number[] }
  | { kind: 'claim'; target: InboxTarget }
  | { kind: 'move' | 'remove' | 'replace'; pick: number; target: InboxTarget }
  | { kind: 'requeue'; target: InboxTarget; at: number; pick: number }
  | { kind: 'clear' }

const target = fc.constantFrom<InboxTarget>('next-turn', 'next-step')
const coordinate = fc.oneof(
  fc.integer({ min: -6, max: 6 }),
  fc.double({ min: -8, max: 8 }), // fractional, -0 and NaN
  fc.constantFrom(Infinity, -Infinity, 1e300, -1e300, Number.MAX_SAFE_INTEGER + 2),
)
// Small id numbers repeat: pending and already-seen ids, which the fast path must still refuse.
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('splice' as const), target, start: coordinate, deleteCount: coordinate, ids: fc.array(fc.nat(30), { maxLength: 3 }) }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('claim' as const), target }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom('move' as const, 'remove' as const, 'replace' as const), pick: fc.nat(20), target }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('requeue' as const), target, at: coordinate, pick: fc.nat(20) }), weight: 1 },
  { arbitrary: fc.constant<Op>({ kind: 'clear' }), weight: 1 },
)

function apply(inbox: Inbox, o: Op, claimed: string[], version: number): void {
  const pending = [...ids(inbox.nextTurn), ...ids(inbox.nextStep)]
  switch (o.kind) {
    case 'splice':
      inbox.splice(o.target, o.start, o.deleteCount, o.ids.map((n) => msg(`v${version}`, `m${n}`)))
      return
    case 'claim':
      claimed.push(...ids(inbox.claim(o.target, 1)))
      return
    case 'clear':
      inbox.clear()
      return
    case 'requeue':
      if (claimed.length > 0) inbox.requeue(o.target, o.at, [msg(`back${version}`, claimed[o.pick % claimed.length])])
      return
    default: {
      const id = pending.length === 0 ? 'missing' : pending[o.pick % pending.length]!
      if (o.kind === 'move') inbox.move(id, o.target)
      else if (o.kind === 'remove') inbox.remove(id)
      else inbox.replace(id, `edit${version}`)
    }
  }
}

describe('Inbox: the fast path of its own splices against the validated (replay) path', () => {
  it('every logged splice is in bounds, is accepted by replay and rebuilds the live queues; a refused write logs nothing', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const session = new Session({ id: 'fast', version: 1, createdAt: 0 }, [], { now: () => 0 })
        const inbox = new Inbox(session)
        const claimed: string[] = []
        ops.forEach((o, version) => {
          const before = session.length
          const queues = { nextTurn: ids(inbox.nextTurn), nextStep: ids(inbox.nextStep) }
          try {
            apply(inbox, o, claimed, version)
          } catch (error) {
            if (!BosunError.is(error)) throw error
            expect(session.length, JSON.stringify(o)).toBe(before)
            expect({ nextTurn: ids(inbox.nextTurn), nextStep: ids(inbox.nextStep) }).toEqual(queues)
            return
          }
          // Each new splice, replayed through the validated path on the log up to it.
          for (let seq = before; seq < session.length; seq++) {
            const events = session.events.slice(0, seq + 1) as SessionEvent[]
            const prior = new Inbox(new Session(session.header, events.slice(0, -1)))
            const splice = events.at(-1)!.data as InboxSplice
            const queue = splice.target === 'next-turn' ? prior.nextTurn : prior.nextStep
            const removed = splice.removedCount ?? 0
            expect(Number.isSafeInteger(splice.start) && splice.start >= 0 && splice.start <= queue.length, JSON.stringify(splice)).toBe(true)
            expect(Number.isSafeInteger(removed) && removed >= 0 && splice.start + removed <= queue.length, JSON.stringify(splice)).toBe(true)
            expect(() => new Inbox(new Session(session.header, events))).not.toThrow()
          }
          const replayed = new Inbox(new Session(session.header, [...session.events]))
          expect(ids(replayed.nextTurn)).toEqual(ids(inbox.nextTurn))
          expect(ids(replayed.nextStep)).toEqual(ids(inbox.nextStep))
        })
      }),
      { numRuns: 300 },
    )
  })
})
