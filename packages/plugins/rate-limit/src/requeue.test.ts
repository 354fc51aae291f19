// The requeue schedule on its own: due times on the plugin's clock, batches that fall due together.
import { afterEach, expect, it, vi } from 'vitest'
import { Inbox, Session, createUserMessage, messageText } from '@bosun/core'
import { Requeue } from './requeue.js'

afterEach(() => vi.useRealTimers())

function setup(now: () => number) {
  const session = new Session({ id: 's', version: 1, createdAt: 0 })
  const inbox = new Inbox(session)
  let wakes = 0
  const requeue = new Requeue(inbox, session, () => wakes++, now)
  const queued = () => inbox.nextTurn.map((message) => messageText(message))
  return { inbox, requeue, queued, wakes: () => wakes }
}

it('puts batches that fall due at the same instant back together, in the order they were rejected, ahead of later input', () => {
  vi.useFakeTimers()
  const { inbox, requeue, queued, wakes } = setup(Date.now)
  const due = Date.now() + 200
  requeue.schedule([createUserMessage('two')], due)
  vi.advanceTimersByTime(1) // rejected a millisecond later, by the same full window: same due time
  requeue.schedule([createUserMessage('three')], due)
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
  const { requeue, queued } = setup(() => Date.now() + offset)
  requeue.schedule([createUserMessage('later')], Date.now() + offset + 100)
  vi.advanceTimersByTime(99)
  expect(queued()).toEqual([])
  vi.advanceTimersByTime(1)
  expect(queued()).toEqual(['later'])
})
