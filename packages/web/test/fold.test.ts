import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { StreamFrame } from '@bosun/host/client'
import { emptySession, foldEvents, foldFrames } from '../app/state/fold.js'
import { isQueuePaused, isQueueWaiting } from '../app/state/select.js'
import { pendingSteering, type SessionView, type TurnView } from '../app/state/view.js'
import { messageText, type WireEvent } from '../app/state/wire.js'
import { realLog } from './real-log.js'

let log: WireEvent[]
beforeAll(async () => {
  log = await realLog()
})

const turns = (view: SessionView): TurnView[] => view.items.filter((item): item is TurnView => item.kind === 'turn')

/** Splits `items` at the given cut points (sorted, deduplicated). */
function chunked<T>(items: readonly T[], cuts: number[]): T[][] {
  const points = [...new Set(cuts.map((cut) => cut % (items.length + 1)))].sort((a, b) => a - b)
  const out: T[][] = []
  let from = 0
  for (const point of [...points, items.length]) {
    out.push(items.slice(from, point))
    from = point
  }
  return out
}

describe('the fold of a real log', () => {
  it('draws turns with their end reasons, steps with usage, reasoning, text and the tool card', () => {
    const view = foldEvents(emptySession(), log)
    expect(turns(view).map((turn) => [turn.turn, turn.reason?.kind])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
      [3, 'blocked'],
      [4, 'completed'],
      [5, 'aborted'],
    ])
    const [first] = turns(view)
    expect(first!.steps.map((step) => step.finish)).toEqual(['tool-calls', 'stop'])
    expect(first!.steps[0]!.usage).toEqual({ inputTokens: 12, outputTokens: 7 })
    expect(first!.steps[0]!.parts).toEqual([
      { kind: 'reasoning', text: 'I should look it up.' },
      { kind: 'text', text: 'Looking.' },
      { kind: 'tool', card: { index: 0, callId: 'call_1_0', name: 'lookup', args: '{"q":"bosun"}', status: 'done', result: 'definition of bosun' } },
    ])
    expect(first!.steps[1]!.parts).toEqual([{ kind: 'text', text: 'A bosun runs the deck.' }])
    expect(first!.steps[0]!.inputs.map((input) => [messageText(input.message), input.steer])).toEqual([['What is a bosun?', false]])
  })

  it('shows a retry row with its delay, and only the retried attempt’s text', () => {
    const second = turns(foldEvents(emptySession(), log))[1]!
    expect(second.steps[0]!.retries).toMatchObject([{ attempt: 2, delayMs: 1, error: { code: 'SERVER', message: 'overloaded' } }])
    expect(second.steps[0]!.parts).toEqual([{ kind: 'text', text: 'Second answer after a retry.' }])
  })

  it('shows a pre-step reject with its plugin, its metadata and the input it refused', () => {
    const third = turns(foldEvents(emptySession(), log))[2]!
    expect(third.steps).toEqual([])
    expect(third.rejected).toMatchObject({ by: 'content-filter', metadata: { rule: 'secret', excerpt: 'forbidden' } })
    expect(third.rejected!.messages.map(messageText)).toEqual(['this is forbidden'])
  })

  it('puts a steer in the step it entered', () => {
    const fourth = turns(foldEvents(emptySession(), log))[3]!
    expect(fourth.steps.map((step) => step.inputs.map((input) => [messageText(input.message), input.steer, input.lane]))).toEqual([
      [['Tell me slowly.', false, 'next-turn']],
      [['Also mention ropes.', true, 'next-step']],
    ])
  })

  it('draws pending steering at the tail until its user/message lands: no gap, no duplicate', () => {
    const steerSplice = log.find((event) => event.type === 'agent/inbox/spliced' && (event.data as { target: string }).target === 'next-step')!
    const landed = log.find((event) => event.type === 'user/message' && messageText(event.data as never) === 'Also mention ropes.')!
    for (let seq = steerSplice.seq; seq <= landed.seq; seq += 1) {
      const view = foldEvents(emptySession(), log.filter((event) => event.seq <= seq))
      const pending = pendingSteering(view).map(messageText)
      const inTimeline = turns(view).flatMap((turn) => turn.steps.flatMap((step) => step.inputs.map((input) => messageText(input.message))))
      const count = pending.filter((text) => text === 'Also mention ropes.').length + inTimeline.filter((text) => text === 'Also mention ropes.').length
      expect(count, `at seq ${seq}`).toBe(1)
      expect(pending.includes('Also mention ropes.'), `pending at seq ${seq}`).toBe(seq < landed.seq)
    }
  })

  it('keeps an aborted step’s delivered prefix, marked interrupted, and the queues empty after a removal', () => {
    const view = foldEvents(emptySession(), log)
    const fifth = turns(view)[4]!
    expect(fifth.steps[0]!.interrupted).toBe(true)
    expect(view.queues).toEqual({ 'next-turn': [], 'next-step': [] })
    expect(view.inFlight).toEqual([])
    expect(view.status).toBe('idle')
    expect(view.events.toArray().map((event) => event.seq)).toEqual(log.map((event) => event.seq))
  })

  it('draws the compaction between turns, with its reason and summary', () => {
    const view = foldEvents(emptySession(), log)
    const last = view.items.at(-1)!
    expect(last).toMatchObject({ kind: 'compaction', reason: 'manual', summary: expect.stringContaining('They talked about the bosun.'), done: true })
    expect(typeof (last as { firstKeptSeq: unknown }).firstKeptSeq).toBe('number')
  })
})

describe('convergence', () => {
  it('folding the events in one go equals folding them in any chunking', () => {
    const whole = foldEvents(emptySession(), log)
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 40 }), (cuts) => {
        let view = emptySession()
        for (const part of chunked(log, cuts)) view = foldEvents(view, part)
        expect(view).toEqual(whole)
      }),
      { numRuns: 60 },
    )
  })

  it('a reconnect that replays an overlap, with derived frames in between, draws the same page', () => {
    const drawn = (view: SessionView) => ({ ...view, statusSeq: null, paused: isQueuePaused(view), waiting: isQueueWaiting(view) })
    const whole = foldEvents(emptySession(), log)
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.nat({ max: 20 })), { maxLength: 8 }), (drops) => {
        // Each drop: the stream breaks after event `at` and resumes `back` events earlier.
        const frames: StreamFrame[] = []
        let cursor = 0
        for (const [at, back] of [...drops].sort((a, b) => a[0] - b[0])) {
          const end = Math.max(cursor, at % log.length)
          for (const event of log.slice(cursor, end)) frames.push({ event: 'session.event', data: event })
          cursor = Math.max(0, end - back)
          // The hello describes the session as it is at the reconnect: the status the log gives there.
          frames.push({ event: 'hello', data: { lastSeq: end - 1, status: foldEvents(emptySession(), log.slice(0, end)).status, inbox: { 'next-turn': [], 'next-step': [] } } })
        }
        for (const event of log.slice(cursor)) frames.push({ event: 'session.event', data: event })
        // Where the status was last said moves with each hello (it says the status again); what is drawn from it does not.
        expect(drawn(foldFrames(emptySession(), frames))).toEqual(drawn(whole))
      }),
      { numRuns: 60 },
    )
  })

  it('a second tab that loads the finished log without chunks draws the same timeline', () => {
    const live = foldEvents(emptySession(), log)
    const finished = new Set(log.filter((event) => event.type === 'assistant/message').map((event) => `${(event.data as { turn: number }).turn}/${(event.data as { step: number }).step}`))
    const withoutChunks = log.filter((event) => event.type !== 'assistant/chunk' || !finished.has(`${(event.data as { turn: number }).turn}/${(event.data as { step: number }).step}`))
    expect(withoutChunks.length).toBeLessThan(log.length)
    const second = foldEvents(emptySession(), withoutChunks)
    expect({ ...second, events: [] }).toEqual({ ...live, events: [] })
  })

  it('never mutates the view it is given', () => {
    const half = foldEvents(emptySession(), log.slice(0, 60))
    const frozen = JSON.stringify(half)
    foldEvents(half, log.slice(60))
    expect(JSON.stringify(half)).toBe(frozen)
  })

  it('ignores a turn/start whose turn is not a list index or jumps far ahead, and the events of that turn', () => {
    const start = (seq: number, turn: unknown): WireEvent => ({ seq, time: 1, type: 'turn/start', data: { turn } })
    const end = (seq: number, turn: unknown): WireEvent => ({ seq, time: 2, type: 'turn/end', data: { turn, reason: { kind: 'completed' } } })
    const view = foldEvents(emptySession(), [start(0, 0), end(1, 0), start(2, undefined), end(3, undefined), start(4, 1.5), start(5, 1e9), end(6, 1e9), start(7, 1), end(8, 1)])
    expect(view.turnIndex.length).toBe(2)
    // Turn 0 is not taken for the malformed ones (an index of NaN or undefined reads as 0 in a trie).
    expect(turns(view).map((turn) => [turn.turn, turn.reason?.kind ?? null])).toEqual([[0, 'completed'], [undefined, null], [1.5, null], [1e9, null], [1, 'completed']])
    expect(turns(view)[0]!.endTime).toBe(2)
  })
})
