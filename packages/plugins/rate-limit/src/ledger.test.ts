import { describe, expect, it } from 'vitest'
import { createUserMessage, type SessionEvent } from '@bosun/core'
import { Ledger } from './ledger.js'
import { keyFunction } from './source-key.js'

/** A log of turns, one per entry: [time of step 1, userId, times of later steps]. */
function log(turns: [number, string, number[]][]): SessionEvent[] {
  const events: { type: string; time: number; data: unknown }[] = []
  turns.forEach(([time, userId, later], i) => {
    const turn = i + 1
    events.push({ type: 'turn/start', time, data: { turn } })
    events.push({ type: 'step/start', time, data: { turn, step: 1 } })
    events.push({ type: 'user/message', time, data: createUserMessage('hi', { source: { kind: 'user', userId } }) })
    events.push({ type: 'step/end', time, data: { turn, step: 1, finish: 'tool-calls' } })
    later.forEach((at, k) => {
      events.push({ type: 'step/start', time: at, data: { turn, step: k + 2 } })
      events.push({ type: 'step/end', time: at, data: { turn, step: k + 2, finish: 'stop' } })
    })
    events.push({ type: 'turn/end', time: later.at(-1) ?? time, data: { turn, reason: { kind: 'completed' } } })
  })
  return events.map((event, seq) => ({ seq, ...event }) as SessionEvent)
}

describe('Ledger.fromLog', () => {
  const perUser = keyFunction('source', 'userId')

  it('counts the turns and steps of the window, per key', () => {
    const events = log([[0, 'ada', []], [50_000, 'ada', [50_100]], [55_000, 'bob', []]])
    const ledger = Ledger.fromLog(events, 60_000, perUser, 60_000)
    expect(ledger.times('turns', 'userId:ada', 60_000)).toEqual([50_000]) // the turn at 0 has left the window
    expect(ledger.times('steps', 'userId:ada', 60_000)).toEqual([50_000, 50_100])
    expect(ledger.times('turns', 'userId:bob', 60_000)).toEqual([55_000])
  })

  it('charges a later step to the key of its turn, even when the turn began before the window', () => {
    const events = log([[0, 'ada', [30_000, 70_000]]])
    const ledger = Ledger.fromLog(events, 80_000, perUser, 60_000)
    expect(ledger.times('steps', 'userId:ada', 80_000)).toEqual([30_000, 70_000])
    expect(ledger.times('turns', 'userId:ada', 80_000)).toEqual([])
  })

  it('reads only the tail of the log: the window and the turn open at its edge', () => {
    const old = log(Array.from({ length: 10_000 }, (_, i): [number, string, number[]] => [i, 'ada', []]))
    const events = [...old, ...log([[100_000, 'ada', []]]).map((e) => ({ ...e, seq: e.seq + old.length }))]
    const read = new Set<number>()
    const watched = new Proxy(events, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) read.add(Number(key))
        return Reflect.get(target, key, receiver)
      },
    })
    const ledger = Ledger.fromLog(watched, 100_000, perUser, 60_000)
    expect(ledger.times('turns', 'userId:ada', 100_000)).toEqual([100_000])
    expect(read.size).toBeLessThan(10)
  })
})
