import { describe, it, expect } from 'vitest'
import { toFrozenJson } from '../json.js'
import { Session } from '../session/session.js'
import { createUserMessage, type UserMessage } from '../session/messages.js'
import type { SessionEvent } from '../session/events.js'
import { thrown } from '../testing/errors.js'
import { msg, timeline } from '../testing/harness.js'
import { bare, ids, lastSplice, queues, recorder, seeded } from '../testing/inbox-fixtures.js'
import { foldConsumedWork } from './consumed-work.js'
import { Inbox } from './inbox.js'
import type { InboxSplice, InboxTarget } from './types.js'

describe('Inbox.splice: one write path', () => {
  it('a follow-up spliced at Infinity lands at the tail; the log records the normalised start and no removedCount', () => {
    const { session, inbox, log } = bare()
    inbox.splice('next-turn', Infinity, 0, [msg('first')])
    inbox.splice('next-turn', Infinity, 0, [msg('second')])
    expect(queues(inbox)).toEqual({ 'next-turn': ['first', 'second'], 'next-step': [] })
    expect(session.events.map((e) => e.data)).toEqual([
      { target: 'next-turn', start: 0, inserted: [msg('first')] },
      { target: 'next-turn', start: 1, inserted: [msg('second')] },
    ])
    expect(Object.keys(session.events[1]!.data as object)).toEqual(['target', 'start', 'inserted'])
    expect(timeline(session.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["first"]
      splice next-turn @1 +["second"]"
    `)
    expect(log).toEqual(['inserted first next-turn', 'inserted second next-turn'])
  })

  // Each case runs the same splice on a real array of the same ids and compares: the queue
  // afterwards, the removed messages, and the coordinates written to the log.
  const coordinates: [string, number, number][] = [
    ['in range', 2, 1],
    ['fractional start and count (truncated)', 1.7, 2.9],
    ['NaN start (→ 0)', NaN, 1],
    ['NaN deleteCount (→ 0)', 2, NaN],
    ['negative start (from the end)', -2, 1],
    ['negative fractional start (truncated towards zero)', -1.5, 1],
    ['negative start beyond the length (→ 0)', -10, 2],
    ['start beyond the length (→ length)', 10, 3],
    ['negative deleteCount (→ 0)', 2, -1],
    ['Infinity deleteCount (→ to the end)', 1, Infinity],
    ['Infinity start', Infinity, 3],
    ['-Infinity start', -Infinity, 2],
    ['-Infinity deleteCount', 3, -Infinity],
    ['huge start', 1e300, 1],
    ['huge negative start', -1e300, 1],
    ['start past MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER + 2, 1],
    ['huge deleteCount', 0, 1e300],
  ]

  describe.each([
    ['with an insertion', ['x']],
    ['as a pure deletion', []],
  ])('%s', (_label, insertedIds) => {
    it.each(coordinates)('normalises like Array.prototype.splice: %s (start %s, deleteCount %s)', (_case, start, deleteCount) => {
      const { session, inbox, log } = seeded(['a', 'b', 'c', 'd', 'e'], ['s'])
      const reference = ['a', 'b', 'c', 'd', 'e']
      const referenceRemoved = reference.splice(start, deleteCount, ...insertedIds)

      const removed = inbox.splice('next-turn', start, deleteCount, insertedIds.map((id) => msg(id)))

      expect(ids(removed)).toEqual(referenceRemoved)
      expect(queues(inbox)).toEqual({ 'next-turn': reference, 'next-step': ['s'] })
      if (referenceRemoved.length === 0 && insertedIds.length === 0) {
        expect(session.length).toBe(2) // a no-op writes nothing
        return
      }
      expect(session.length).toBe(3)
      const splice = lastSplice(session)
      // The logged start is where the insertion landed in the reference array (or, for a
      // pure deletion, where the removed run began): replaying it needs no arithmetic.
      const expectedStart =
        insertedIds.length > 0 ? reference.indexOf('x') : ['a', 'b', 'c', 'd', 'e'].indexOf(referenceRemoved[0]!)
      expect(splice.start).toBe(expectedStart)
      if (referenceRemoved.length === 0) expect(splice).not.toHaveProperty('removedCount')
      else expect(splice.removedCount).toBe(referenceRemoved.length)
      expect(ids(splice.inserted)).toEqual(insertedIds)
      if (referenceRemoved.length > 0) expect(splice.outcome).toBe('canceled')
      else expect(splice).not.toHaveProperty('outcome')
      expect(log).toEqual([
        ...referenceRemoved.map((id) => `discarded ${id} next-turn`),
        ...insertedIds.map((id) => `inserted ${id} next-turn`),
      ])
    })
  })

  it('logs start +0 (never -0) for a start in (-1, 0], as Array.prototype.splice normalises it', () => {
    // ToIntegerOrInfinity(-0.5) and ToIntegerOrInfinity(-0) are the mathematical 0: a live log
    // must hold the same coordinate that a JSON round-trip of it would (JSON has no -0).
    for (const start of [-0.5, -0]) {
      const { session, inbox } = seeded(['a', 'b'])
      inbox.splice('next-turn', start, 1, [msg('x')])
      expect(ids(inbox.nextTurn)).toEqual(['x', 'b'])
      expect(Object.is(lastSplice(session).start, 0)).toBe(true)
      expect(lastSplice(session)).toEqual(JSON.parse(JSON.stringify(lastSplice(session))))
    }
  })

  it.each([
    ['deleteCount 0 and nothing inserted', 1, 0],
    ['a negative deleteCount', 1, -3],
    ['a NaN deleteCount', 0, NaN],
    ['a start beyond the end', 99, 5],
    ['Infinity start', Infinity, Infinity],
  ])('a no-op (%s) returns [] and writes and notifies nothing', (_case, start, deleteCount) => {
    const { session, inbox, log } = seeded(['a', 'b'])
    const before = session.length
    expect(inbox.splice('next-turn', start, deleteCount, [])).toEqual([])
    expect(inbox.splice('next-turn', start, deleteCount)).toEqual([]) // inserted defaults to []
    expect(session.length).toBe(before)
    expect(queues(inbox)).toEqual({ 'next-turn': ['a', 'b'], 'next-step': [] })
    expect(log).toEqual([])
  })

  it('a deletion on an empty queue is a no-op, even with Infinity coordinates', () => {
    const { session, inbox } = bare()
    expect(inbox.splice('next-step', 0, Infinity, [])).toEqual([])
    expect(inbox.splice('next-turn', -Infinity, Infinity, [])).toEqual([])
    expect(session.length).toBe(0)
  })

  it('a public removal records outcome "canceled", returns the removed messages and notifies discarded, then inserted', () => {
    const { session, inbox, log } = seeded(['a', 'b', 'c'])
    const removed = inbox.splice('next-turn', 1, 1, [msg('x'), msg('y')])
    expect(removed).toEqual([msg('b')])
    expect(lastSplice(session)).toEqual({
      target: 'next-turn',
      start: 1,
      removedCount: 1,
      inserted: [msg('x'), msg('y')],
      outcome: 'canceled',
    })
    expect(queues(inbox)['next-turn']).toEqual(['a', 'x', 'y', 'c'])
    expect(log).toEqual(['discarded b next-turn', 'inserted x next-turn', 'inserted y next-turn'])
    expect(timeline(session.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["a", "b", "c"]
      splice next-turn @1 -1 +["x", "y"] canceled"
    `)
  })

  it('plain strings are accepted as inputs and become user-sourced messages with fresh ids', () => {
    const { inbox } = bare()
    inbox.splice('next-step', 0, 0, ['look at b.txt', 'and c.txt'])
    expect(inbox.nextStep.map((m) => [m.role, m.content, m.source])).toEqual([
      ['user', [{ type: 'text', text: 'look at b.txt' }], { kind: 'user' }],
      ['user', [{ type: 'text', text: 'and c.txt' }], { kind: 'user' }],
    ])
    expect(inbox.nextStep[0]!.id).not.toBe(inbox.nextStep[1]!.id)
  })

  it('queued messages are the frozen messages written to the log; the read-only views cannot change the queue', () => {
    const { session, inbox } = bare()
    inbox.splice('next-turn', 0, 0, [msg('a')])
    expect(inbox.nextTurn[0]).toBe(lastSplice(session).inserted[0])
    expect(Object.isFrozen(inbox.nextTurn[0])).toBe(true)
    expect(inbox.find('a')).toEqual({ target: 'next-turn', index: 0, message: msg('a') })
    expect(inbox.find('zz')).toBeUndefined()
    expect(inbox.hasPending).toBe(true)
  })
})

describe('append first, mutate second', () => {
  it('a session observer sees the queues as they were before the splice and can rebuild what it removed', () => {
    const { session, inbox, log } = seeded(['a', 'b', 'c', 'd'], ['s'])
    const seen: { seq: number; logLength: number; before: string[]; rebuiltRemoved: string[] }[] = []
    session.subscribe((event) => {
      const splice = event.data as InboxSplice
      const queue = splice.target === 'next-turn' ? inbox.nextTurn : inbox.nextStep
      log.push(`observer seq=${event.seq}`)
      seen.push({
        seq: event.seq,
        logLength: session.length,
        before: ids(queue),
        rebuiltRemoved: ids(queue.slice(splice.start, splice.start + (splice.removedCount ?? 0))),
      })
    })
    const removed = inbox.splice('next-turn', -3, 2, [msg('x')])
    expect(ids(removed)).toEqual(['b', 'c'])
    expect(seen).toEqual([{ seq: 2, logLength: 3, before: ['a', 'b', 'c', 'd'], rebuiltRemoved: ['b', 'c'] }])
    // notifications come after the observer, on the post-state
    expect(log).toEqual(['observer seq=2', 'discarded b next-turn', 'discarded c next-turn', 'inserted x next-turn'])
    expect(ids(inbox.nextTurn)).toEqual(['a', 'x', 'd'])
  })

  it('an observer sees the pre-state of each of the two splices of a claim', () => {
    const { session, inbox } = seeded(['t1', 't2'], ['s1', 's2'])
    const seen: string[] = []
    session.subscribe((event) => {
      const s = event.data as InboxSplice
      const queue = s.target === 'next-turn' ? inbox.nextTurn : inbox.nextStep
      seen.push(`${s.target} before=${ids(queue)} removed=${ids(queue.slice(s.start, s.start + (s.removedCount ?? 0)))}`)
    })
    inbox.claim('next-turn', 1)
    expect(seen).toEqual(['next-step before=s1,s2 removed=s1,s2', 'next-turn before=t1,t2 removed=t1'])
  })

  it('notifications see the post-state: an inserted message is already queued when inserted() runs', () => {
    const session = new Session({ id: 's', version: 1, createdAt: 0 })
    const states: string[] = []
    const inbox: Inbox = new Inbox(session, {
      inserted: (m) => states.push(`inserted ${m.id}: ${ids(inbox.nextTurn)} log=${session.length}`),
      discarded: (m) => states.push(`discarded ${m.id}: ${ids(inbox.nextTurn)} log=${session.length}`),
      claimed: () => {},
    })
    inbox.splice('next-turn', 0, 0, [msg('a')])
    inbox.splice('next-turn', 0, 1, [msg('b')])
    expect(states).toEqual(['inserted a: a log=1', 'discarded a: b log=2', 'inserted b: b log=2'])
  })

  it('a throwing notification is contained and reported; the splice stands', () => {
    const reported: string[] = []
    const session = new Session({ id: 's', version: 1, createdAt: 0 }, [], {
      reportError: (error, context) => reported.push(`${context}: ${(error as Error).message}`),
    })
    const inbox = new Inbox(session, {
      inserted: () => {
        throw new Error('listener broke')
      },
      discarded: () => {},
      claimed: () => {},
    })
    expect(ids(inbox.splice('next-turn', 0, 0, [msg('a'), msg('b')]))).toEqual([])
    expect(ids(inbox.nextTurn)).toEqual(['a', 'b'])
    expect(session.length).toBe(1)
    expect(reported).toEqual(['inbox notification: listener broke', 'inbox notification: listener broke'])
  })
})

describe('validation happens before the append', () => {
  it('a duplicate id within the inserted batch is refused with DUPLICATE_MESSAGE_ID', () => {
    const { session, inbox, log } = seeded(['a'])
    const error = thrown(() => inbox.splice('next-turn', Infinity, 0, [msg('x'), msg('x, again', 'x')]))
    expect(error.code).toBe('DUPLICATE_MESSAGE_ID')
    expect(error.message).toContain('"x"')
    expect(session.length).toBe(1)
    expect(queues(inbox)).toEqual({ 'next-turn': ['a'], 'next-step': [] })
    expect(log).toEqual([])
  })

  it('an id pending in next-turn cannot be queued in next-step, nor the other way round', () => {
    const { session, inbox, log } = seeded(['t'], ['s'])
    expect(thrown(() => inbox.splice('next-step', 0, 0, [msg('t')])).code).toBe('DUPLICATE_MESSAGE_ID')
    expect(thrown(() => inbox.splice('next-turn', 0, 0, [msg('s')])).code).toBe('DUPLICATE_MESSAGE_ID')
    // the same id in the same queue too, even when the splice also removes other messages
    expect(thrown(() => inbox.splice('next-turn', 1, 0, [msg('t')])).code).toBe('DUPLICATE_MESSAGE_ID')
    expect(session.length).toBe(2)
    expect(queues(inbox)).toEqual({ 'next-turn': ['t'], 'next-step': ['s'] })
    expect(log).toEqual([])
  })

  it('re-inserting an id that the same splice removes is allowed (an in-place replacement)', () => {
    const { session, inbox, log } = seeded(['a', 'b'])
    const removed = inbox.splice('next-turn', 0, 1, [msg('a, edited', 'a')])
    expect(removed).toEqual([msg('a')])
    expect(inbox.nextTurn).toEqual([msg('a, edited', 'a'), msg('b')])
    expect(lastSplice(session)).toMatchObject({ start: 0, removedCount: 1, outcome: 'canceled' })
    expect(log).toEqual(['discarded a next-turn', 'inserted a next-turn'])
  })

  it('only the ids the splice actually removes are freed: removing "a" does not free "b"', () => {
    const { session, inbox } = seeded(['a', 'b'])
    expect(thrown(() => inbox.splice('next-turn', 0, 1, [msg('b')])).code).toBe('DUPLICATE_MESSAGE_ID')
    expect(session.length).toBe(1)
    expect(ids(inbox.nextTurn)).toEqual(['a', 'b'])
  })

  it.each<[string, () => [unknown, unknown, unknown, unknown]]>([
    ['an unknown target', () => ['next', 0, 0, [msg('x')]]],
    ['an undefined target', () => [undefined, 0, 0, [msg('x')]]],
    ['a string start', () => ['next-turn', '0', 0, [msg('x')]]],
    ['an undefined start', () => ['next-turn', undefined, 0, [msg('x')]]],
    ['a null start', () => ['next-turn', null, 0, [msg('x')]]],
    ['a string deleteCount', () => ['next-turn', 0, '1', []]],
    ['an undefined deleteCount', () => ['next-turn', 0, undefined, []]],
    ['a single message instead of an array', () => ['next-turn', 0, 0, msg('x')]],
    ['a string instead of an array', () => ['next-turn', 0, 0, 'hello']],
    ['null inserted', () => ['next-turn', 0, 0, null]],
  ])('%s is refused with INVALID_ARGUMENT and the log unchanged', (_case, args) => {
    const { session, inbox, log } = seeded(['a'])
    const error = thrown(() => (inbox.splice as (...a: unknown[]) => unknown)(...args()))
    expect(error.code).toBe('INVALID_ARGUMENT')
    expect(session.length).toBe(1)
    expect(queues(inbox)).toEqual({ 'next-turn': ['a'], 'next-step': [] })
    expect(log).toEqual([])
  })

  it.each<[string, unknown]>([
    ['a number', 42],
    ['null', null],
    ['an object without id', { role: 'user', content: [{ type: 'text', text: 'x' }], source: { kind: 'user' } }],
    ['an empty id', { id: '', role: 'user', content: [{ type: 'text', text: 'x' }], source: { kind: 'user' } }],
    ['role assistant', { id: 'x', role: 'assistant', content: [{ type: 'text', text: 'x' }], source: { kind: 'user' } }],
    ['empty content', { id: 'x', role: 'user', content: [], source: { kind: 'user' } }],
    ['an unknown block type', { id: 'x', role: 'user', content: [{ type: 'video', url: 'u' }], source: { kind: 'user' } }],
    ['a text block without text', { id: 'x', role: 'user', content: [{ type: 'text' }], source: { kind: 'user' } }],
    ['no source', { id: 'x', role: 'user', content: [{ type: 'text', text: 'x' }] }],
    ['a source without kind', { id: 'x', role: 'user', content: [{ type: 'text', text: 'x' }], source: {} }],
    ['an extra field', { id: 'x', role: 'user', content: [{ type: 'text', text: 'x' }], source: { kind: 'user' }, extra: 1 }],
  ])('an inserted item that is not a message (%s) is refused with INVALID_MESSAGE and nothing of the batch lands', (_case, item) => {
    const { session, inbox, log } = seeded(['a'])
    const error = thrown(() => inbox.splice('next-turn', 0, 1, [msg('ok'), item as UserMessage]))
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(error.message).toContain('inserted[1]')
    expect(session.length).toBe(1)
    expect(queues(inbox)).toEqual({ 'next-turn': ['a'], 'next-step': [] })
    expect(log).toEqual([])
  })

  it('a deep-frozen JSON object that is not a message (e.g. taken from the log) is still refused with INVALID_MESSAGE', () => {
    const { session, inbox } = seeded(['a'])
    // Event data is deep-frozen JSON; being frozen JSON does not make it a UserMessage.
    const notAMessage = toFrozenJson({ id: 'x', role: 'assistant', content: [], source: { kind: 'user' } }, 'test')
    const error = thrown(() => inbox.splice('next-turn', Infinity, 0, [notAMessage as UserMessage]))
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(session.length).toBe(1)
    expect(ids(inbox.nextTurn)).toEqual(['a'])
  })
})

describe('claim', () => {
  it('claim takes all of next-step (FIFO), then the head of next-turn, as pure deletions without outcome', () => {
    const { session, inbox, log } = seeded(['t1', 't2'], ['s1', 's2'])
    const claimed = inbox.claim('next-turn', 7)
    expect(ids(claimed)).toEqual(['s1', 's2', 't1'])
    expect(queues(inbox)).toEqual({ 'next-turn': ['t2'], 'next-step': [] })
    expect(session.events.slice(2).map((e) => e.data)).toEqual([
      { target: 'next-step', start: 0, removedCount: 2, inserted: [] },
      { target: 'next-turn', start: 0, removedCount: 1, inserted: [] },
    ])
    expect(timeline(session.events.slice(2))).toMatchInlineSnapshot(`
      "splice next-step @0 -2
      splice next-turn @0 -1"
    `)
    // claimed(message, turn) in the returned order, and no discarded notification
    expect(log).toEqual(['claimed s1 turn=7', 'claimed s2 turn=7', 'claimed t1 turn=7'])
  })

  it('the claimed notifications are sent after both splices are in the log', () => {
    const session = new Session({ id: 's', version: 1, createdAt: 0 })
    const at: number[] = []
    const inbox = new Inbox(session, { inserted() {}, discarded() {}, claimed: () => at.push(session.length) })
    inbox.splice('next-turn', 0, 0, [msg('t')])
    inbox.splice('next-step', 0, 0, [msg('s')])
    inbox.claim('next-turn', 1)
    expect(at).toEqual([4, 4])
  })

  it("claim('next-step') takes all of next-step and never touches next-turn", () => {
    const { session, inbox, log } = seeded(['t1', 't2'], ['s1', 's2', 's3'])
    expect(ids(inbox.claim('next-step', 2))).toEqual(['s1', 's2', 's3'])
    expect(queues(inbox)).toEqual({ 'next-turn': ['t1', 't2'], 'next-step': [] })
    expect(session.length).toBe(3)
    expect(lastSplice(session)).toEqual({ target: 'next-step', start: 0, removedCount: 3, inserted: [] })
    expect(log).toEqual(['claimed s1 turn=2', 'claimed s2 turn=2', 'claimed s3 turn=2'])
    // with next-step empty it is a no-op even though next-turn has work
    expect(inbox.claim('next-step', 2)).toEqual([])
    expect(session.length).toBe(3)
  })

  it('claim with an empty next-step writes only the next-turn deletion; one turn per claim (FIFO)', () => {
    const { session, inbox, log } = seeded(['t1', 't2'])
    expect(ids(inbox.claim('next-turn', 1))).toEqual(['t1'])
    expect(ids(inbox.claim('next-turn', 2))).toEqual(['t2'])
    expect(timeline(session.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["t1", "t2"]
      splice next-turn @0 -1
      splice next-turn @0 -1"
    `)
    expect(log).toEqual(['claimed t1 turn=1', 'claimed t2 turn=2'])
  })

  it('claim on empty queues returns [] and writes and notifies nothing', () => {
    const { session, inbox, log } = bare()
    expect(inbox.claim('next-turn', 1)).toEqual([])
    expect(inbox.claim('next-step', 1)).toEqual([])
    expect(session.length).toBe(0)
    expect(log).toEqual([])
  })

  it('claim with an unknown target is refused with INVALID_ARGUMENT before anything is claimed', () => {
    const { session, inbox, log } = seeded(['t'], ['s'])
    expect(thrown(() => inbox.claim('both' as InboxTarget, 1)).code).toBe('INVALID_ARGUMENT')
    expect(session.length).toBe(2)
    expect(queues(inbox)).toEqual({ 'next-turn': ['t'], 'next-step': ['s'] })
    expect(log).toEqual([])
  })
})

describe('clear', () => {
  it('clear empties next-step first, then next-turn, each as its own canceled splice', () => {
    const { session, inbox, log } = seeded(['t1', 't2'], ['s1'])
    const removed = inbox.clear()
    expect(ids(removed)).toEqual(['s1', 't1', 't2'])
    expect(queues(inbox)).toEqual({ 'next-turn': [], 'next-step': [] })
    expect(inbox.hasPending).toBe(false)
    expect(session.events.slice(2).map((e) => e.data)).toEqual([
      { target: 'next-step', start: 0, removedCount: 1, inserted: [], outcome: 'canceled' },
      { target: 'next-turn', start: 0, removedCount: 2, inserted: [], outcome: 'canceled' },
    ])
    expect(timeline(session.events.slice(2))).toMatchInlineSnapshot(`
      "splice next-step @0 -1 canceled
      splice next-turn @0 -2 canceled"
    `)
    expect(log).toEqual(['discarded s1 next-step', 'discarded t1 next-turn', 'discarded t2 next-turn'])
  })

  it('clear writes one splice per non-empty queue and nothing when both are empty', () => {
    const { session, inbox } = seeded(['t'])
    inbox.clear()
    expect(session.length).toBe(2)
    expect(lastSplice(session)).toEqual({ target: 'next-turn', start: 0, removedCount: 1, inserted: [], outcome: 'canceled' })
    expect(inbox.clear()).toEqual([])
    expect(session.length).toBe(2)
  })
})

describe('replace and remove by id', () => {
  it('replace edits a queued message in place as one canceled splice and returns the replacement', () => {
    const { session, inbox, log } = seeded(['a', 'b', 'c'], ['s'])
    const replacement = inbox.replace('b', msg('b, edited', 'b'))
    expect(replacement).toEqual(msg('b, edited', 'b'))
    expect(inbox.nextTurn).toEqual([msg('a'), msg('b, edited', 'b'), msg('c')])
    expect(lastSplice(session)).toEqual({
      target: 'next-turn',
      start: 1,
      removedCount: 1,
      inserted: [msg('b, edited', 'b')],
      outcome: 'canceled',
    })
    expect(log).toEqual(['discarded b next-turn', 'inserted b next-turn'])
  })

  it('replace finds the message in next-step too', () => {
    const { session, inbox } = seeded(['t'], ['s1', 's2'])
    inbox.replace('s2', msg('steer harder', 's2'))
    expect(inbox.nextStep).toEqual([msg('s1'), msg('steer harder', 's2')])
    expect(lastSplice(session)).toMatchObject({ target: 'next-step', start: 1, removedCount: 1 })
    expect(ids(inbox.nextTurn)).toEqual(['t'])
  })

  it('an edit with plain text keeps the queued message id (the id is the receipt of the queued item)', () => {
    const { inbox } = seeded(['a', 'b'])
    const replacement = inbox.replace('a', 'a, rewritten')
    expect(replacement.id).toBe('a')
    expect(inbox.nextTurn.map((m) => [m.id, m.content])).toEqual([
      ['a', [{ type: 'text', text: 'a, rewritten' }]],
      ['b', [{ type: 'text', text: 'b' }]],
    ])
  })

  it('replace with a message whose id is pending elsewhere is refused with DUPLICATE_MESSAGE_ID', () => {
    const { session, inbox } = seeded(['a', 'b'], ['s'])
    expect(thrown(() => inbox.replace('a', msg('s'))).code).toBe('DUPLICATE_MESSAGE_ID')
    expect(thrown(() => inbox.replace('a', msg('b'))).code).toBe('DUPLICATE_MESSAGE_ID')
    expect(session.length).toBe(2)
    expect(queues(inbox)).toEqual({ 'next-turn': ['a', 'b'], 'next-step': ['s'] })
  })

  it('replace with an invalid replacement is refused with INVALID_MESSAGE and the log unchanged', () => {
    const { session, inbox } = seeded(['a'])
    const bad = { id: 'a', role: 'user', content: [], source: { kind: 'user' } } as unknown as UserMessage
    expect(thrown(() => inbox.replace('a', bad)).code).toBe('INVALID_MESSAGE')
    expect(session.length).toBe(1)
    expect(inbox.nextTurn).toEqual([msg('a')])
  })

  it('remove cancels one queued message in place and returns it', () => {
    const { session, inbox, log } = seeded(['a', 'b', 'c'])
    expect(inbox.remove('b')).toEqual(msg('b'))
    expect(ids(inbox.nextTurn)).toEqual(['a', 'c'])
    expect(lastSplice(session)).toEqual({ target: 'next-turn', start: 1, removedCount: 1, inserted: [], outcome: 'canceled' })
    expect(log).toEqual(['discarded b next-turn'])
  })

  it('a claim that took the message wins the race: edit and remove fail with MESSAGE_NOT_PENDING and write nothing', () => {
    const { session, inbox, log } = seeded(['a', 'b'])
    inbox.claim('next-turn', 1)
    const length = session.length
    const edit = thrown(() => inbox.replace('a', msg('too late', 'a')))
    expect(edit.code).toBe('MESSAGE_NOT_PENDING')
    expect(edit.message).toMatch(/Cannot edit message "a": it is not pending \(already claimed/)
    expect(edit.details).toEqual({ id: 'a' })
    const removal = thrown(() => inbox.remove('a'))
    expect(removal.code).toBe('MESSAGE_NOT_PENDING')
    expect(removal.message).toMatch(/Cannot remove message "a"/)
    expect(session.length).toBe(length)
    expect(ids(inbox.nextTurn)).toEqual(['b'])
    expect(log).toEqual(['claimed a turn=1'])
  })

  it('remove of an id that was never queued, or was already removed, fails with MESSAGE_NOT_PENDING', () => {
    const { session, inbox } = seeded(['a'])
    expect(thrown(() => inbox.remove('ghost')).code).toBe('MESSAGE_NOT_PENDING')
    inbox.remove('a')
    expect(thrown(() => inbox.remove('a')).code).toBe('MESSAGE_NOT_PENDING')
    expect(thrown(() => inbox.replace('a', msg('a'))).code).toBe('MESSAGE_NOT_PENDING')
    expect(session.length).toBe(2)
  })

  it.each([42, undefined, null, { id: 'a' }])('a non-string id (%s) is refused with INVALID_ARGUMENT', (id) => {
    const { session, inbox } = seeded(['a'])
    expect(thrown(() => inbox.remove(id as unknown as string)).code).toBe('INVALID_ARGUMENT')
    expect(thrown(() => inbox.replace(id as unknown as string, msg('x'))).code).toBe('INVALID_ARGUMENT')
    expect(session.length).toBe(1)
  })
})

describe('replay-once', () => {
  function busy() {
    const setup = seeded(['t1', 't2', 't3'], ['s1'])
    const { inbox } = setup
    inbox.splice('next-step', Infinity, 0, [createUserMessage('ctx', { id: 'c1', source: { kind: 'tool', tool: 'read' } })])
    inbox.claim('next-turn', 1)
    inbox.splice('next-turn', 1, 0, [msg('t4')])
    inbox.replace('t3', msg('t3, edited', 't3'))
    inbox.splice('next-step', 0, 0, [msg('s2'), msg('s3')])
    inbox.remove('s2')
    return setup
  }

  it('a new Inbox over the same session rebuilds both queues identically and sends no notifications', () => {
    const { session, inbox } = busy()
    const { log, notifications } = recorder()
    const rebuilt = new Inbox(session, notifications)
    expect(queues(inbox)).toEqual({ 'next-turn': ['t2', 't4', 't3'], 'next-step': ['s3'] })
    expect(rebuilt.nextTurn).toEqual(inbox.nextTurn)
    expect(rebuilt.nextStep).toEqual(inbox.nextStep)
    expect(rebuilt.hasPending).toBe(true)
    expect(log).toEqual([])
  })

  it('a new Session made from a copy of the events rebuilds the same queues, and the rebuilt inbox continues the log', () => {
    const { session, inbox } = busy()
    const copy = new Session(session.header, JSON.parse(JSON.stringify(session.events)) as SessionEvent[], { now: () => 0 })
    const rebuilt = new Inbox(copy)
    expect(rebuilt.nextTurn).toEqual(inbox.nextTurn)
    expect(rebuilt.nextStep).toEqual(inbox.nextStep)
    expect(ids(rebuilt.claim('next-turn', 2))).toEqual(ids(inbox.claim('next-turn', 2)))
    expect(copy.events.slice(session.length - 2)).toEqual(session.events.slice(session.length - 2))
    // and the rebuilt inbox keeps enforcing unique ids across queues
    expect(thrown(() => rebuilt.splice('next-step', 0, 0, [msg('t4')])).code).toBe('DUPLICATE_MESSAGE_ID')
  })

  it('replay starts at header.seedLength: splices of the seed prefix are ignored', () => {
    const parent = seeded(['p1', 'p2'], ['p3'])
    parent.inbox.claim('next-turn', 1) // leaves p2 pending in the parent
    const seed = [...parent.session.events]
    // a fork: the child's own history starts after the seed, with empty queues
    const child = bare(seed, { seedLength: seed.length })
    expect(queues(child.inbox)).toEqual({ 'next-turn': [], 'next-step': [] })
    child.inbox.splice('next-turn', Infinity, 0, [msg('p2'), msg('c1')]) // p2 is free in the child
    expect(lastSplice(child.session).start).toBe(0)
    const reopened = new Inbox(new Session(child.session.header, [...child.session.events]))
    expect(queues(reopened)).toEqual({ 'next-turn': ['p2', 'c1'], 'next-step': [] })
  })

  it('a seed prefix whose splices would not replay on empty queues is not read at all', () => {
    const session = new Session({ id: 's', version: 1, createdAt: 0, seedLength: 1 })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 5, removedCount: 9, inserted: [] })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [msg('mine')] })
    expect(ids(new Inbox(session).nextTurn)).toEqual(['mine'])
  })

  it.each<[string, unknown]>([
    ['start out of bounds', { target: 'next-turn', start: 3, inserted: [msg('x')] }],
    ['a negative start', { target: 'next-turn', start: -1, inserted: [msg('x')] }],
    ['a fractional start', { target: 'next-turn', start: 0.5, inserted: [msg('x')] }],
    ['a missing start', { target: 'next-turn', inserted: [msg('x')] }],
    ['removedCount beyond the queue', { target: 'next-turn', start: 0, removedCount: 2, inserted: [] }],
    ['a negative removedCount', { target: 'next-turn', start: 1, removedCount: -1, inserted: [] }],
    ['a duplicate id (already in next-step)', { target: 'next-turn', start: 0, inserted: [msg('s')] }],
    ['a duplicate id within the batch', { target: 'next-step', start: 0, inserted: [msg('y'), msg('y')] }],
    ['inserted not an array', { target: 'next-turn', start: 0, inserted: 'x' }],
    ['inserted missing', { target: 'next-turn', start: 0 }],
    ['an unknown target', { target: 'later', start: 0, inserted: [msg('x')] }],
    ['an inserted item that is not an object', { target: 'next-turn', start: 0, inserted: [7] }],
  ])('a corrupted persisted splice (%s) throws INVALID_PERSISTED_SPLICE naming its seq', (_case, data) => {
    const session = new Session({ id: 'broken', version: 1, createdAt: 0 })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [msg('t')] })
    session.append('agent/inbox/spliced', { target: 'next-step', start: 0, inserted: [msg('s')] })
    session.append('turn/start', { turn: 1 })
    session.append('agent/inbox/spliced', data as InboxSplice)
    const { log, notifications } = recorder()
    const error = thrown(() => new Inbox(session, notifications))
    expect(error.code).toBe('INVALID_PERSISTED_SPLICE')
    expect(error.message).toContain('seq 3')
    expect(error.message).toContain('"broken"')
    expect(error.details).toEqual({ seq: 3, sessionId: 'broken' })
    expect(error.cause).toBeInstanceOf(Error)
    expect(log).toEqual([])
  })

  it('a persisted splice with an outcome other than "canceled" throws INVALID_PERSISTED_SPLICE', () => {
    // foldConsumedWork reads any removal without outcome "canceled" as a claim: an unknown
    // outcome would silently turn a cancellation into consumed work.
    const session = new Session({ id: 'broken', version: 1, createdAt: 0 })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [msg('t')] })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [], outcome: 'lost' } as never)
    const error = thrown(() => new Inbox(session))
    expect(error.code).toBe('INVALID_PERSISTED_SPLICE')
    expect(error.message).toContain('seq 1')
  })

  it('a persisted splice inserting something that is not a UserMessage throws INVALID_PERSISTED_SPLICE', () => {
    // Stored events are deep-frozen JSON; replay must still validate the messages they carry.
    const session = new Session({ id: 'broken', version: 1, createdAt: 0 })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [msg('t')] })
    session.append('agent/inbox/spliced', {
      target: 'next-turn',
      start: 1,
      inserted: [{ id: 'x', role: 'assistant', content: 'not blocks' } as unknown as UserMessage],
    })
    const error = thrown(() => new Inbox(session))
    expect(error.code).toBe('INVALID_PERSISTED_SPLICE')
    expect(error.message).toContain('seq 1')
  })
})

describe('writes from a session observer during a splice (re-entrant)', () => {
  // SPEC §4 expects observers that cancel during a splice. Whatever they do, the log must stay
  // the source of truth: replaying it gives the live queues, and each message leaves once.

  // Such a write runs right after the splice being logged is applied (it cannot apply before it
  // without breaking replay); a cancel therefore also cancels the message that triggered it.
  it('an observer that cancels while a follow-up is appended cancels it too, after it is applied; the log replays', () => {
    const { session, inbox } = seeded(['old'])
    let armed = true
    let returned: UserMessage[] | undefined
    session.subscribe((event) => {
      if (armed && (event.data as InboxSplice).inserted.some((m) => m.id === 'new')) {
        armed = false
        returned = inbox.clear()
      }
    })
    inbox.splice('next-turn', Infinity, 0, [msg('new')])
    expect(returned).toEqual([]) // deferred: nothing was removed yet when clear() returned
    expect(queues(inbox)).toEqual({ 'next-turn': [], 'next-step': [] })
    expect(timeline(session.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["old"]
      splice next-turn @1 +["new"]
      splice next-turn @0 -2 canceled"
    `)
    expect(queues(new Inbox(session))).toEqual(queues(inbox))
    expect(foldConsumedWork(session.events).canceled).toEqual(['old', 'new'])
  })

  it('an observer that clears the inbox while a claim is being logged: each message leaves once, and the log replays', () => {
    const { session, inbox } = seeded(['t'], ['s1', 's2'])
    let armed = true
    session.subscribe((event) => {
      const splice = event.data as InboxSplice
      if (armed && splice.removedCount !== undefined && splice.outcome === undefined) {
        armed = false
        inbox.clear()
      }
    })
    const claimed = inbox.claim('next-turn', 1)
    // the next-step claim is logged, the clear then cancels the next-turn head before the claim reaches it
    expect(ids(claimed)).toEqual(['s1', 's2'])
    expect(foldConsumedWork(session.events).canceled).toEqual(['t'])
    let rebuilt: Inbox | undefined
    expect(() => (rebuilt = new Inbox(session))).not.toThrow()
    expect(queues(rebuilt!)).toEqual(queues(inbox))
  })

  it('an observer that removes one message while another removal is being logged leaves a replayable log', () => {
    const { session, inbox } = seeded(['a', 'b', 'c'])
    let armed = true
    session.subscribe(() => {
      if (armed) {
        armed = false
        inbox.remove('b')
      }
    })
    inbox.remove('a')
    expect(ids(inbox.nextTurn)).toEqual(['c'])
    let rebuilt: Inbox | undefined
    expect(() => (rebuilt = new Inbox(session))).not.toThrow()
    expect(ids(rebuilt!.nextTurn)).toEqual(['c'])
  })
})
