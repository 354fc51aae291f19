import { describe, it, expect } from 'vitest'
import { Session } from '../session/session.js'
import type { SessionEvent } from '../session/events.js'
import { thrown } from '../testing/errors.js'
import { msg, timeline } from '../testing/harness.js'
import { bare, queues, recorder, seeded } from '../testing/inbox-fixtures.js'
import { closeOpenTurn } from '../store/repair.js'
import { foldConsumedWork } from './consumed-work.js'
import { Inbox } from './inbox.js'

describe('Inbox.move: a queued message to the other queue, neither claim nor cancel', () => {
  it('logs a pure removal with outcome "moved", then the insertion at the tail of the other queue', () => {
    const { session, inbox, log } = seeded(['a', 'b', 'c'], ['s'])
    const before = session.length
    const moved = inbox.move('b', 'next-step')
    expect(moved).toEqual(msg('b'))
    expect(queues(inbox)).toEqual({ 'next-turn': ['a', 'c'], 'next-step': ['s', 'b'] })
    expect(session.events.slice(before).map((e) => e.data)).toEqual([
      { target: 'next-turn', start: 1, removedCount: 1, inserted: [], outcome: 'moved' },
      { target: 'next-step', start: 1, inserted: [msg('b')] },
    ])
    expect(timeline(session.events.slice(before))).toMatchInlineSnapshot(`
      "splice next-turn @1 -1 moved
      splice next-step @1 +["b"]"
    `)
    // Not discarded (not a cancel) and not claimed: it entered next-step.
    expect(log).toEqual(['inserted b next-step'])
  })

  it('replays to the same queues, and the fold counts it as neither canceled nor claimed', () => {
    const { session, inbox } = seeded(['a', 'b'])
    session.append('turn/start', { turn: 1 })
    inbox.move('b', 'next-step')
    const rebuilt = new Inbox(session)
    expect(queues(rebuilt)).toEqual(queues(inbox))
    const work = foldConsumedWork(session.events)
    expect(work.canceled).toEqual([])
    expect(work.turns).toEqual([{ turn: 1, stepped: [], unstepped: [] }])
    expect(work.pending).toEqual({ 'next-turn': ['a'], 'next-step': ['b'] })
  })

  it('a claim that took the message wins the race: the move fails with MESSAGE_NOT_PENDING and writes nothing', () => {
    const { session, inbox } = seeded(['a'])
    inbox.claim('next-turn', 1)
    const length = session.length
    const error = thrown(() => inbox.move('a', 'next-step'))
    expect(error.code).toBe('MESSAGE_NOT_PENDING')
    expect(session.length).toBe(length)
  })

  it('a move to the queue that already holds it writes nothing; an unknown target is refused', () => {
    const { session, inbox } = seeded(['a'])
    const length = session.length
    expect(inbox.move('a', 'next-turn').id).toBe('a')
    expect(session.length).toBe(length)
    expect(thrown(() => inbox.move('a', 'later' as never)).code).toBe('INVALID_ARGUMENT')
  })

  it('a moved message keeps its receipt: claimed as usual, requeueable after the claim, never reusable as a new id', () => {
    const { inbox } = seeded(['a'])
    inbox.move('a', 'next-step')
    expect(inbox.claim('next-step', 1).map((m) => m.id)).toEqual(['a'])
    expect(thrown(() => inbox.splice('next-turn', 0, 0, [msg('again', 'a')])).code).toBe('DUPLICATE_MESSAGE_ID')
    expect(inbox.requeue('next-turn', 0, [msg('a')]).map((m) => m.id)).toEqual(['a'])
  })

  it('a move from a session observer runs after the splice being logged, and its two halves stay adjacent', () => {
    const { session, inbox } = seeded(['a', 'b'])
    let once = true
    session.subscribe((event) => {
      if (once && event.type === 'agent/inbox/spliced') {
        once = false
        inbox.move('a', 'next-step')
      }
    })
    inbox.splice('next-turn', Infinity, 0, [msg('c')])
    const tail = session.events.slice(-3).map((e) => e.data)
    expect(tail).toEqual([
      { target: 'next-turn', start: 2, inserted: [msg('c')] },
      { target: 'next-turn', start: 0, removedCount: 1, inserted: [], outcome: 'moved' },
      { target: 'next-step', start: 0, inserted: [msg('a')] },
    ])
    expect(queues(new Inbox(session))).toEqual({ 'next-turn': ['b', 'c'], 'next-step': ['a'] })
  })

  it('a persisted "moved" splice that also inserts, or removes nothing, throws INVALID_PERSISTED_SPLICE', () => {
    for (const bad of [
      { target: 'next-turn', start: 0, removedCount: 1, inserted: [msg('x')], outcome: 'moved' },
      { target: 'next-turn', start: 0, inserted: [], outcome: 'moved' },
    ]) {
      const session = new Session({ id: 'broken', version: 1, createdAt: 0 })
      session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [msg('t')] })
      session.append('agent/inbox/spliced', bad as never)
      const error = thrown(() => new Inbox(session))
      expect(error.code).toBe('INVALID_PERSISTED_SPLICE')
      expect(error.message).toContain('seq 1')
    }
  })
})

describe('a move torn by a crash between its two splices', () => {
  /** The log of a move whose insertion never reached the store. */
  function torn(): SessionEvent[] {
    const { session, inbox } = seeded(['a', 'b'])
    inbox.move('a', 'next-step')
    return session.events.slice(0, -1) as SessionEvent[]
  }

  it('recoverTornMoves finishes the move (forward, into the queue it was going to) once, and the log replays', () => {
    const { session, inbox, log } = bare(torn())
    expect(queues(inbox)).toEqual({ 'next-turn': ['b'], 'next-step': [] })
    expect(inbox.recoverTornMoves().map((m) => m.id)).toEqual(['a'])
    expect(queues(inbox)).toEqual({ 'next-turn': ['b'], 'next-step': ['a'] })
    expect(session.last!.data).toEqual({ target: 'next-step', start: 0, inserted: [msg('a')] })
    expect(log).toEqual(['inserted a next-step'])
    const length = session.length
    expect(inbox.recoverTornMoves()).toEqual([])
    expect(session.length).toBe(length)
    const reopened = new Inbox(session, recorder().notifications)
    expect(reopened.recoverTornMoves()).toEqual([])
    expect(queues(reopened)).toEqual(queues(inbox))
  })

  it('an untorn move is left alone, and crash repair does not take a moved message for a claim', () => {
    const { session, inbox } = seeded(['a', 'b'])
    session.append('turn/start', { turn: 1 })
    inbox.claim('next-turn', 1)
    inbox.move('b', 'next-step')
    const reopened = new Inbox(session)
    expect(reopened.recoverTornMoves()).toEqual([])
    const report = closeOpenTurn(session, reopened)
    // "a" was claimed and never stepped: back at the head of next-turn; "b" stays where it moved.
    expect(report.requeued).toEqual(['a'])
    expect(queues(reopened)).toEqual({ 'next-turn': ['a'], 'next-step': ['b'] })
  })
})
