import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, createUserMessage, memoryStore } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { foldInbox, InboxFold } from '../src/log.js'
import { stepGate, waitFor } from './helpers.js'

type Op =
  | { kind: 'followup' }
  | { kind: 'steer' }
  | { kind: 'remove'; pick: number }
  | { kind: 'replace'; pick: number }
  | { kind: 'reorder'; pick: number }
  | { kind: 'move'; pick: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: 'followup' as const }),
  fc.constant({ kind: 'steer' as const }),
  fc.nat(20).map((pick) => ({ kind: 'remove' as const, pick })),
  fc.nat(20).map((pick) => ({ kind: 'replace' as const, pick })),
  fc.nat(20).map((pick) => ({ kind: 'reorder' as const, pick })),
  fc.nat(20).map((pick) => ({ kind: 'move' as const, pick })),
)

const ids = (q: { 'next-turn': { id: string }[]; 'next-step': { id: string }[] }) => ({ 'next-turn': q['next-turn'].map((m) => m.id), 'next-step': q['next-step'].map((m) => m.id) })

describe('the inbox fold', () => {
  it('continuing from the live inbox at the tail gives what folding the whole log gives (property)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), fc.nat(24), async (ops, splitAt) => {
      const gate = stepGate()
      const agent = await createAgent({ model: scripted({ responses: [] }), store: memoryStore(), sessionId: 's', plugins: [gate.plugin] })
      try {
        agent.followup('hold the turn')
        await waitFor(() => gate.waiting === 1, 15_000, 'turn 1 to be held at its step')
        const seedLength = agent.session.header.seedLength ?? 0
        let n = 0
        let continued: InboxFold | undefined
        let seen = 0
        for (const [i, o] of ops.entries()) {
          if (i === Math.min(splitAt, ops.length - 1)) {
            continued = InboxFold.continuing(agent.inbox, seedLength)
            seen = agent.session.length
          }
          const queued = [...agent.inbox.nextTurn, ...agent.inbox.nextStep]
          const target = queued.length === 0 ? undefined : queued[('pick' in o ? o.pick : 0) % queued.length]!
          if (o.kind === 'followup') agent.followup(createUserMessage(`f${n}`, { id: `m${n++}` }))
          else if (o.kind === 'steer') agent.steer(createUserMessage(`s${n}`, { id: `m${n++}` }))
          else if (target === undefined) continue
          else if (o.kind === 'remove') agent.inbox.remove(target.id)
          else if (o.kind === 'replace') agent.inbox.replace(target.id, createUserMessage(`edited ${target.id}`, { id: target.id, source: target.source }))
          else if (o.kind === 'move') agent.inbox.move(target.id, agent.inbox.nextTurn.includes(target) ? 'next-step' : 'next-turn')
          else if (agent.inbox.nextTurn.length > 1) agent.inbox.splice('next-turn', 0, agent.inbox.nextTurn.length, [...agent.inbox.nextTurn].reverse())
        }
        const events = agent.session.events
        for (let seq = seen; seq < events.length; seq++) continued!.apply(events[seq]!)
        const whole = foldInbox(events, seedLength)
        expect(ids(continued!.snapshot())).toEqual(ids(whole))
        expect(ids(whole)).toEqual({ 'next-turn': agent.inbox.nextTurn.map((m) => m.id), 'next-step': agent.inbox.nextStep.map((m) => m.id) })
      } finally {
        agent.cancel()
        gate.open()
        await agent.close()
      }
    }), { numRuns: 40 })
  })
})
