// Review P4: the child fold is fed one event at a time (as the child appends them); it must say
// exactly what folding the whole log says, at every point, and a state once read must not change.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { SessionEvent } from '@bosun/core'
import { ChildFold, foldChild } from './fold.js'

const kinds = ['completed', 'aborted', 'interrupted', 'error'] as const
const childId = fc.constantFrom('g1', 'g2')
const event: fc.Arbitrary<{ type: string; data: unknown }> = fc.oneof(
  fc.record({ target: fc.constantFrom('next-turn', 'next-step'), inserted: fc.nat(2), removed: fc.nat(2) }).map(({ target, inserted, removed }) => ({
    type: 'agent/inbox/spliced', data: { target, inserted: Array.from({ length: inserted }, () => ({})), ...(removed ? { removedCount: removed } : {}) },
  })),
  fc.nat(5).map((turn) => ({ type: 'turn/start', data: { turn } })),
  fc.record({ turn: fc.nat(5), kind: fc.constantFrom(...kinds) }).map(({ turn, kind }) => ({ type: 'turn/end', data: { turn, reason: { kind } } })),
  fc.string().map((content) => ({ type: 'tool/call', data: { name: 'report', arguments: JSON.stringify({ content }) } })),
  fc.constantFrom('{', '{"content":1}').map((json) => ({ type: 'tool/call', data: { name: 'report', arguments: json } })),
  fc.string().map((text) => ({ type: 'assistant/message', data: { message: { content: [{ type: 'text', text }] } } })),
  fc.record({ type: fc.constantFrom('subagent/spawned', 'subagent/sent', 'subagent/settled'), childId }).map(({ type, childId }) => ({ type, data: { childId } })),
)

describe('the incremental child fold', () => {
  it('equals the whole-log fold after every event, and a state read earlier is not changed by later events', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.nat(5), fc.boolean(), (drafts, seed, resume) => {
        const events = drafts.map((draft, seq) => ({ ...draft, seq, time: 0 }) as unknown as SessionEvent)
        const seedLength = Math.min(seed, events.length)
        const fold = new ChildFold(resume)
        const states = []
        for (let i = seedLength; i < events.length; i++) {
          fold.add(events[i]!)
          const state = fold.state
          states.push(structuredClone(state))
          expect(state).toEqual(foldChild(events.slice(0, i + 1), seedLength, resume))
          expect(fold.settlements).toEqual(state.settlements)
          expect(fold.settledAtEnd).toBe(state.settledAtEnd)
          states.push(state)
        }
        // Pairs of (clone taken at once, the state object itself): later events changed neither.
        for (let i = 0; i < states.length; i += 2) expect(states[i + 1]).toEqual(states[i])
      }),
      { numRuns: 300 },
    )
  })
})
