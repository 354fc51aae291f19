// The requeue schedule on its own: due times on the plugin's clock, batches that fall due together.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Inbox, Session, createUserMessage, messageText, type SessionEvent, type UserMessage } from '@bosun/core'
import { outstandingRequeues, Requeue } from './requeue.js'

afterEach(() => vi.useRealTimers())

function setup(now: () => number) {
  const session = new Session({ id: 's', version: 1, createdAt: 0 })
  const inbox = new Inbox(session)
  let wakes = 0
  const requeue = new Requeue(inbox, session, () => wakes++, now)
  const queued = () => inbox.nextTurn.map((message) => messageText(message))
  /** Messages as a rejected step leaves them: queued, then claimed (only those can be put back). */
  const taken = (...texts: string[]): UserMessage[] => {
    inbox.splice('next-step', Infinity, 0, texts.map((text) => createUserMessage(text)))
    return inbox.claim('next-step', 1)
  }
  return { inbox, requeue, queued, taken, wakes: () => wakes }
}

it('puts batches that fall due at the same instant back together, in the order they were rejected, ahead of later input', () => {
  vi.useFakeTimers()
  const { inbox, requeue, queued, taken, wakes } = setup(Date.now)
  const due = Date.now() + 200
  requeue.schedule(taken('two'), due)
  vi.advanceTimersByTime(1) // rejected a millisecond later, by the same full window: same due time
  requeue.schedule(taken('three'), due)
  inbox.splice('next-turn', Infinity, 0, [createUserMessage('four')])
  vi.advanceTimersByTime(198)
  expect(queued()).toEqual(['four'])
  vi.advanceTimersByTime(1)
  expect(queued()).toEqual(['two', 'three', 'four'])
  expect(wakes()).toBe(2)
})

it('reads due times on the clock it was given, not on Date.now', () => {
  vi.useFakeTimers()
  const offset = 5_000_000
  const { requeue, queued, taken } = setup(() => Date.now() + offset)
  requeue.schedule(taken('later'), Date.now() + offset + 100)
  vi.advanceTimersByTime(99)
  expect(queued()).toEqual([])
  vi.advanceTimersByTime(1)
  expect(queued()).toEqual(['later'])
})

it('waits for a due time past a timer\'s longest wait (a window of a month) in steps, not by re-arming every millisecond', () => {
  vi.useFakeTimers() // they fire a wait past 2^31 - 1 ms after 1 ms, as Node does
  let reads = 0
  const { requeue, queued, taken } = setup(() => (reads++, Date.now()))
  const due = Date.now() + 2 ** 31 + 100
  requeue.schedule(taken('next month'), due)
  const armed = reads
  vi.advanceTimersByTime(1000)
  expect(reads).toBe(armed) // no timer fired: nothing read the clock again
  vi.advanceTimersByTime(2 ** 31 - 1 - 1000)
  expect(queued()).toEqual([]) // the first step ended; not due yet, armed again
  vi.advanceTimersByTime(100)
  expect(queued()).toEqual([])
  vi.advanceTimersByTime(1)
  expect(queued()).toEqual(['next month'])
})

describe('outstandingRequeues (what a previous process logged and did not carry out)', () => {
  const [a, b, c] = [createUserMessage('a'), createUserMessage('b'), createUserMessage('c')]
  let seq = 0
  const event = (type: string, data: object): SessionEvent => ({ seq: seq++, time: 0, type, data }) as SessionEvent
  const requeued = (dueAt: number, ...messages: UserMessage[]) => event('rate-limit/requeued', { turn: 1, dueAt, messages })
  const inserted = (...messages: UserMessage[]) => event('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: messages })

  it('keeps the messages no later splice inserted again, grouped by requeue, in log order', () => {
    const events = [inserted(a, b, c), requeued(200, a, b), requeued(100, c), inserted(b)]
    expect(outstandingRequeues(events)).toEqual({
      putBack: [b.id],
      outstanding: [
        { turn: 1, dueAt: 200, messages: [a] },
        { turn: 1, dueAt: 100, messages: [c] },
      ],
      unwoken: [b.id],
    })
  })

  it('a message put back (or sent again) and requeued again is outstanding only by its last requeue', () => {
    expect(outstandingRequeues([requeued(100, a), inserted(a), requeued(300, a)]).outstanding).toEqual([{ turn: 1, dueAt: 300, messages: [a] }])
    expect(outstandingRequeues([requeued(100, a), inserted(a)])).toEqual({ putBack: [a.id], outstanding: [], unwoken: [a.id] })
    expect(outstandingRequeues([inserted(a), event('turn/start', { turn: 1 })])).toEqual({ putBack: [], outstanding: [], unwoken: [] })
  })

  it('unwoken: what was put back after the last turn start and end — a turn after it, or one running at it, took the wake over', () => {
    const turn = (type: 'turn/start' | 'turn/end') => event(type, { turn: 2 })
    expect(outstandingRequeues([requeued(100, a, b), inserted(a), inserted(b)]).unwoken).toEqual([a.id, b.id])
    expect(outstandingRequeues([requeued(100, a, b), inserted(a), turn('turn/start'), inserted(b)]).unwoken).toEqual([b.id])
    expect(outstandingRequeues([requeued(100, a), inserted(a), turn('turn/start')]).unwoken).toEqual([])
    expect(outstandingRequeues([requeued(100, a), turn('turn/start'), inserted(a), turn('turn/end')]).unwoken).toEqual([])
    expect(outstandingRequeues([requeued(100, a), inserted(a), inserted(c)]).unwoken).toEqual([a.id]) // c was never requeued
  })

  it('reads from `from` on: a fork leaves the requeues of its seed (the parent’s history) alone', () => {
    const events = [requeued(100, a), requeued(200, b)]
    expect(outstandingRequeues(events, 1).outstanding).toEqual([{ turn: 1, dueAt: 200, messages: [b] }])
  })
})

it('restored requeues go behind the messages the previous process put back that still wait at the head', () => {
  vi.useFakeTimers()
  const { inbox, requeue, queued, taken } = setup(Date.now)
  const [one, two] = taken('one', 'two')
  inbox.requeue('next-turn', 0, [one!]) // put back by the previous process, not run yet
  inbox.splice('next-turn', Infinity, 0, [createUserMessage('later')])
  requeue.restore({ putBack: [one!.id], outstanding: [{ turn: 2, dueAt: Date.now() + 10, messages: [two!] }], unwoken: [] })
  vi.advanceTimersByTime(10)
  expect(queued()).toEqual(['one', 'two', 'later'])
})

it('does not put back a message that is already in the inbox (put back by recovery meanwhile)', () => {
  vi.useFakeTimers()
  const { inbox, requeue, queued, taken, wakes } = setup(Date.now)
  const [message, other] = taken('again', 'other')
  requeue.schedule([message!, other!], Date.now() + 10)
  inbox.requeue('next-turn', 0, [message!])
  vi.advanceTimersByTime(10)
  expect(queued()).toEqual(['other', 'again'])
  expect(wakes()).toBe(1)
})
