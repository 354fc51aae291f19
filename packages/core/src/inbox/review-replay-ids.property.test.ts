// Review of 3514d72 (inbox.ts split into queues.ts / replay.ts): the model property drives the
// queues but never delivers a message to a step (`user/message`), derives one from claimed input,
// nor replays a log as a fork's seed — the paths where replay, not the live write path, decides
// which ids are used and which may be put back. Here: random sends, claims, deliveries (plain or
// derived), requeues and moves; an inbox rebuilt from the log must agree with a model on the used
// ids and on which claimed ids may be requeued, and a fork whose seed is that log starts empty,
// with only the seed's delivered ids used and nothing to put back.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Session } from '../session/session.js'
import { createUserMessage, deriveUserMessage, type UserMessage } from '../session/messages.js'
import { Inbox } from './inbox.js'
import type { InboxTarget } from './types.js'

type Command =
  | { kind: 'send'; target: InboxTarget; id: number }
  | { kind: 'claim'; target: InboxTarget }
  | { kind: 'deliver'; pick: number; derived: boolean }
  | { kind: 'requeue'; pick: number }
  | { kind: 'move'; pick: number }

const target = fc.constantFrom<InboxTarget>('next-turn', 'next-step')
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('send' as const), target, id: fc.nat(7) }),
  fc.record({ kind: fc.constant('claim' as const), target }),
  fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat(9), derived: fc.boolean() }),
  fc.record({ kind: fc.constant('requeue' as const), pick: fc.nat(9) }),
  fc.record({ kind: fc.constant('move' as const), pick: fc.nat(9) }),
)

const IDS = Array.from({ length: 8 }, (_, i) => `m${i}`)
const pending = (inbox: Inbox) => [...inbox.nextStep, ...inbox.nextTurn]

/** Whether `id` may be requeued, asked of a fresh rebuild of `events` (a requeue changes the inbox it runs on). */
function requeueable(header: Session['header'], events: Session['events'], id: string, message: UserMessage): boolean {
  try {
    new Inbox(new Session(header, [...events])).requeue('next-turn', 0, [message])
    return true
  } catch {
    return false
  }
}

describe('inbox replay of used and returnable ids (deliveries, derived messages, a fork seed)', () => {
  it('a rebuilt inbox agrees with the model; a fork of the log starts empty with only delivered ids used', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (commands) => {
        const session = new Session({ id: 's', version: 1, createdAt: 0 })
        const live = new Inbox(session)
        const used = new Set<string>()
        const delivered = new Set<string>()
        const returnable = new Map<string, UserMessage>()
        let derivedCount = 0
        for (const cmd of commands) {
          const claimed = [...returnable.values()]
          switch (cmd.kind) {
            case 'send': {
              const id = IDS[cmd.id]!
              if (used.has(id)) {
                expect(() => live.splice(cmd.target, Infinity, 0, [createUserMessage(id, { id })])).toThrow(/already/)
              } else {
                live.splice(cmd.target, Infinity, 0, [createUserMessage(id, { id })])
                used.add(id)
              }
              break
            }
            case 'claim':
              for (const message of live.claim(cmd.target, 1)) returnable.set(message.id, message)
              break
            case 'deliver': {
              if (claimed.length === 0) break
              const from = claimed[cmd.pick % claimed.length]!
              // A pre-step's rewrite under a new id names what it came from: both are no longer returnable.
              const message = cmd.derived ? deriveUserMessage(from, 'rewritten', { id: `d${derivedCount++}` }) : from
              session.append('user/message', message)
              returnable.delete(from.id)
              used.add(message.id)
              delivered.add(message.id)
              break
            }
            case 'requeue': {
              if (claimed.length === 0) break
              const message = claimed[cmd.pick % claimed.length]!
              live.requeue('next-turn', 0, [message])
              returnable.delete(message.id)
              break
            }
            case 'move': {
              const queued = pending(live)
              if (queued.length === 0) break
              const message = queued[cmd.pick % queued.length]!
              const found = live.find(message.id)!
              live.move(message.id, found.target === 'next-turn' ? 'next-step' : 'next-turn')
              break
            }
          }
        }
        const rebuilt = new Inbox(new Session(session.header, [...session.events]))
        expect(rebuilt.nextTurn.map((m) => m.id)).toEqual(live.nextTurn.map((m) => m.id))
        expect(rebuilt.nextStep.map((m) => m.id)).toEqual(live.nextStep.map((m) => m.id))
        const everyId = [...IDS, ...Array.from({ length: derivedCount }, (_, i) => `d${i}`)]
        for (const id of everyId) {
          expect(live.hasSeen(id), id).toBe(used.has(id))
          expect(rebuilt.hasSeen(id), id).toBe(used.has(id))
        }
        // Every claimed id the model still holds returnable may be put back; no other used id may.
        for (const id of used) {
          const message = returnable.get(id) ?? createUserMessage(id, { id })
          expect(requeueable(session.header, session.events, id, message), id).toBe(returnable.has(id))
        }
        // The same log as a fork's seed: the child's own history is empty.
        const seed = [...session.events]
        const child = new Inbox(new Session({ id: 'child', version: 1, createdAt: 0, seedLength: seed.length }, seed))
        expect(child.hasPending).toBe(false)
        for (const id of everyId) expect(child.hasSeen(id), id).toBe(delivered.has(id))
        for (const [id, message] of returnable) expect(() => child.requeue('next-turn', 0, [message]), id).toThrow(/requeue/)
      }),
      { numRuns: 300 },
    )
    // ~1 s idle; a ceiling for a loaded 2-core machine (as the model property's), not a time check.
  }, 60_000)
})
