import { describe, expect, it } from 'vitest'
import type { StreamFrame } from '@bosun/host/client'
import { foldWork } from '../app/state/draft.js'
import { emptySession, foldFrames } from '../app/state/fold.js'
import type { SessionView } from '../app/state/view.js'
import type { WireEvent } from '../app/state/wire.js'

/**
 * What a batch of frames costs the fold, counted as the slots it copies (draft.ts), not timed:
 * a batch must cost what it adds, so a 5,000-turn replay folded a turn at a time is linear.
 */

/** The frames of turn `turn` from seq `seq` on: a completed turn as a stream without chunks sends it. */
function turnFrames(turn: number, seq: number): StreamFrame[] {
  const message = { id: `m-${turn}`, role: 'user', content: [{ type: 'text', text: `Question ${turn}` }], source: { kind: 'user' } }
  const events: [string, unknown][] = [
    ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [message] }],
    ['turn/start', { turn }],
    ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }],
    ['step/start', { turn, step: 1 }],
    ['user/message', message],
    ['assistant/message', { turn, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}.` }] }, usage: { inputTokens: 40, outputTokens: 4 } }],
    ['step/end', { turn, step: 1, finish: 'stop' }],
    ['turn/end', { turn, reason: { kind: 'completed' } }],
  ]
  return events.map(([type, data], index) => ({ event: 'session.event', data: { seq: seq + index, time: 1_764_000_000_000 + seq + index, type, data } as WireEvent }))
}

/** Folds `turns` turns, one batch per turn; answers the view and each batch's copied slots. */
function replay(turns: number): { view: SessionView; cost: number[] } {
  let view = emptySession()
  const cost: number[] = []
  for (let turn = 1; turn <= turns; turn += 1) {
    const before = foldWork.copiedSlots
    view = foldFrames(view, turnFrames(turn, view.lastSeq + 1))
    cost.push(foldWork.copiedSlots - before)
  }
  return { view, cost }
}

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length

describe('the cost of folding a batch', () => {
  it('does not grow with the session: the 5,000th turn costs about what the 10th does', () => {
    const { view, cost } = replay(5_000)
    expect(view.lastSeq).toBe(5_000 * 8 - 1)
    expect(view.items.length).toBe(5_000)
    const early = mean(cost.slice(10, 110))
    const late = mean(cost.slice(-100))
    console.log(`fold cost, copied slots per one-turn batch (8 events): turns 11-110 ${early.toFixed(0)}, turns 4,901-5,000 ${late.toFixed(0)}; whole replay ${cost.reduce((a, b) => a + b, 0)}`)
    // A batch copies the path to what it changes in each list: one trie level more per 32× the
    // events (2 levels at 80 events, 4 at 40,000), never the 40,000 events a list copy would be.
    expect(late).toBeLessThan(early * 2.5)
    expect(late).toBeLessThan(300)
  })

  it('folds a replay in linear work: twice the turns, twice the copies', () => {
    const total = (turns: number): number => replay(turns).cost.reduce((sum, value) => sum + value, 0)
    expect(total(4_000) / total(2_000)).toBeLessThan(2.3)
  })
})
