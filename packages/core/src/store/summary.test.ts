import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Inbox } from '../inbox/inbox.js'
import { LOG_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '../session/events.js'
import { createUserMessage } from '../session/messages.js'
import { Session } from '../session/session.js'
import { FIRST_PROMPT_MAX, LogSummaryFold, summarizeLog, summaryFields, type LogSummaryPendingState, type LogSummaryState } from './summary.js'

const header = (extra: Partial<SessionHeader> = {}): SessionHeader => ({ id: 's', version: LOG_FORMAT_VERSION, createdAt: 1_000, ...extra })

/** What an inbox replayed from the log holds, per queue: the reference for `queued` (and `pending`, their sum). */
const replayedQueues = (h: SessionHeader, events: readonly SessionEvent[]) => {
  const inbox = new Inbox(new Session(h, [...events]))
  return { 'next-turn': inbox.nextTurn.length, 'next-step': inbox.nextStep.length }
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('queue' as const), step: fc.boolean(), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('cancel' as const), step: fc.boolean(), start: fc.nat(3), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('move' as const), pick: fc.nat(10) }),
  fc.record({ kind: fc.constant('turn' as const) }),
  fc.record({ kind: fc.constant('message' as const), user: fc.boolean(), text: fc.string({ maxLength: 6 }) }),
)
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never

/** Runs `ops` on a live session and inbox, as an agent would write them. */
function run(session: Session, ops: readonly Op[], ids: { n: number }): void {
  const inbox = new Inbox(session)
  let turn = session.events.findLast((e) => e.type === 'turn/start')?.data as { turn: number } | undefined
  let turns = turn?.turn ?? 0
  for (const o of ops) {
    switch (o.kind) {
      case 'queue':
        inbox.splice(o.step ? 'next-step' : 'next-turn', Infinity, 0, Array.from({ length: o.count }, () => createUserMessage(`q${ids.n}`, { id: `m${ids.n++}` })))
        break
      case 'cancel':
        inbox.splice(o.step ? 'next-step' : 'next-turn', o.start, o.count)
        break
      case 'move': {
        const all = [...inbox.nextTurn, ...inbox.nextStep]
        if (all.length > 0) inbox.move(all[o.pick % all.length]!.id, o.pick % 2 === 0 ? 'next-step' : 'next-turn')
        break
      }
      case 'turn':
        session.append('turn/start', { turn: ++turns })
        break
      case 'message':
        session.append('user/message', createUserMessage(o.text, { id: `m${ids.n++}`, source: { kind: o.user ? 'user' : 'agent' } }))
        break
    }
  }
}

/** A session forked from one that ran `seedOps` (none: not a fork), then running `ops`. */
function forked(seedOps: readonly Op[], ops: readonly Op[]): { h: SessionHeader; child: Session } {
  const ids = { n: 0 }
  const parent = new Session(header(), [])
  run(parent, seedOps, ids)
  const seed: SessionEvent[] = [...parent.events, { seq: parent.events.length, time: 1, type: 'session/end-seed', data: {} } as SessionEvent]
  const h = seedOps.length === 0 ? header() : header({ parent: 'p', seedLength: seed.length })
  const child = new Session(h, seedOps.length === 0 ? [] : seed)
  run(child, ops, ids)
  return { h, child }
}

describe('summarizeLog', () => {
  it('tells last activity, turns, the first prompt and what is pending', () => {
    let now = 1_000
    const session = new Session(header(), [], { now: () => (now += 10) })
    expect(summarizeLog(header(), [])).toEqual({ length: 0, lastActivity: 1_000, turns: 0, firstPrompt: null, pending: 0, queued: { 'next-turn': 0, 'next-step': 0 } })
    const inbox = new Inbox(session)
    inbox.splice('next-turn', 0, 0, [createUserMessage('queued first', { id: 'a' }), createUserMessage('then', { id: 'b' })])
    expect(summarizeLog(header(), session.events)).toMatchObject({ firstPrompt: 'queued first', pending: 2 })
    session.append('turn/start', { turn: 1 })
    session.append('user/message', createUserMessage('from a tool', { id: 'c', source: { kind: 'agent' } }))
    session.append('user/message', createUserMessage('typed', { id: 'd' }))
    inbox.splice('next-turn', 0, 1)
    inbox.splice('next-step', 0, 0, [createUserMessage('steer', { id: 'e' })])
    expect(summarizeLog(header(), session.events)).toEqual({ length: 6, lastActivity: now, turns: 1, firstPrompt: 'typed', pending: 2, queued: { 'next-turn': 1, 'next-step': 1 } })
  })

  it('counts each queue and pending as the inbox replays them, a fork seed left out (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), fc.array(op, { maxLength: 12 }), (seedOps, ops) => {
        const { h, child } = forked(seedOps, ops)
        const summary = summarizeLog(h, child.events)
        const queues = replayedQueues(h, child.events)
        expect(summary.queued).toEqual(queues)
        expect(summary.pending).toBe(queues['next-turn'] + queues['next-step'])
        expect(summary.length).toBe(child.events.length)
        const starts = child.events.filter((e) => e.type === 'turn/start')
        expect(summary.turns).toBe((starts.at(-1)?.data as { turn: number } | undefined)?.turn ?? 0)
      }),
      { numRuns: 200 },
    )
  })
})

/** The reference preview, by code points (`Array.from`): whole up to the cap, else the first cap - 1 and `…`. */
const expectedPreview = (text: string) => {
  const points = Array.from(text)
  return points.length <= FIRST_PROMPT_MAX ? text : `${points.slice(0, FIRST_PROMPT_MAX - 1).join('')}…`
}

describe('summarizeLog firstPrompt: a preview of bounded size', () => {
  const firstPromptOf = (...texts: string[]) => {
    const session = new Session(header(), [])
    session.append('user/message', { id: 'u', role: 'user', source: { kind: 'user' }, content: texts.map((text) => ({ type: 'text', text })) })
    return summarizeLog(header(), session.events).firstPrompt!
  }

  it('keeps a text of up to FIRST_PROMPT_MAX code points whole, cuts a longer one to FIRST_PROMPT_MAX with `…`', () => {
    expect(FIRST_PROMPT_MAX).toBe(200)
    expect(firstPromptOf('a'.repeat(200))).toBe('a'.repeat(200))
    expect(firstPromptOf('a'.repeat(201))).toBe(`${'a'.repeat(199)}…`)
    expect(firstPromptOf('x'.repeat(100_000))).toBe(`${'x'.repeat(199)}…`)
    // Counted in code points: 200 emoji (400 code units) are whole, 201 are cut between pairs.
    expect(firstPromptOf('😀'.repeat(200))).toBe('😀'.repeat(200))
    expect(firstPromptOf('😀'.repeat(201))).toBe(`${'😀'.repeat(199)}…`)
    // The cut never splits a pair, wherever the pairs start.
    const cut = firstPromptOf(`a${'😀'.repeat(300)}`)
    expect(cut).toBe(`a${'😀'.repeat(198)}…`)
    expect(cut).not.toMatch(/\p{Cs}/u)
    // Over several text blocks, as messageText joins them.
    expect(firstPromptOf('b'.repeat(150), 'c'.repeat(150))).toBe(`${'b'.repeat(150)}${'c'.repeat(49)}…`)
    expect(firstPromptOf('d'.repeat(500), 'e'.repeat(500))).toBe(`${'d'.repeat(199)}…`)
  })

  it('cuts the first queued message alike', () => {
    const session = new Session(header(), [])
    new Inbox(session).splice('next-turn', 0, 0, [createUserMessage('q'.repeat(1_000), { id: 'a' })])
    expect(summarizeLog(header(), session.events).firstPrompt).toBe(`${'q'.repeat(199)}…`)
  })

  it('is the reference preview of the text, for any text (property)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 420 }), fc.string({ unit: 'binary', minLength: 190, maxLength: 420 }))
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 3 }), (texts) => {
        const preview = firstPromptOf(...texts)
        expect(preview).toBe(expectedPreview(texts.join('')))
        expect(Array.from(preview).length).toBeLessThanOrEqual(FIRST_PROMPT_MAX)
      }),
      { numRuns: 300 },
    )
  })

  it('reads a longer firstPrompt saved by an earlier build as a preview (summaryFields, fromState)', () => {
    // SQLite's row and PostgreSQL's JSON: what summaryFields reads.
    const long = `${'l'.repeat(5_000)}😀`
    const saved = JSON.stringify({ length: 1, lastActivity: 5, turns: 0, firstPrompt: long, pending: 0 })
    expect(summaryFields(saved, 1)).toEqual({ lastActivity: 5, turns: 0, firstPrompt: `${'l'.repeat(199)}…`, pending: 0 })
    // A preview read back is not cut again.
    const preview = `${'p'.repeat(199)}…`
    expect(summaryFields(JSON.stringify({ length: 1, lastActivity: 5, turns: 0, firstPrompt: preview, pending: 0 }), 1).firstPrompt).toBe(preview)
    // JSONL's sidecar: a saved fold, resumed.
    const state = { ...LogSummaryFold.of(header(), []).state(), length: 1 }
    expect(LogSummaryFold.fromState({ ...state, firstPrompt: long })!.summary().firstPrompt).toBe(`${'l'.repeat(199)}…`)
    const queued = LogSummaryFold.fromState({ ...state, firstQueued: 'q'.repeat(300) })!
    expect(queued.summary().firstPrompt).toBe(`${'q'.repeat(199)}…`)
    expect(queued.state().firstQueued).toBe(`${'q'.repeat(199)}…`)
  })

  it('gives queued only from a summary that counted each queue and adds up to its pending (summaryFields)', () => {
    const current = { length: 2, lastActivity: 5, turns: 0, firstPrompt: null, pending: 3, queued: { 'next-turn': 1, 'next-step': 2 } }
    expect(summaryFields(JSON.stringify(current), 2)).toEqual({ lastActivity: 5, turns: 0, firstPrompt: null, pending: 3, queued: { 'next-turn': 1, 'next-step': 2 } })
    // Written by an earlier build: the other fields, no queued (a reader that needs it reads the log).
    const { queued: _, ...earlier } = current
    expect(summaryFields(JSON.stringify(earlier), 2)).toEqual({ lastActivity: 5, turns: 0, firstPrompt: null, pending: 3 })
    for (const queued of [{ 'next-turn': 1, 'next-step': 1 }, { 'next-turn': 1 }, { 'next-turn': -1, 'next-step': 4 }, { 'next-turn': 1.5, 'next-step': 1.5 }, [1, 2], null]) {
      expect(summaryFields(JSON.stringify({ ...current, queued }), 2)).not.toHaveProperty('queued')
    }
  })
})

describe('LogSummaryFold on events it cannot read', () => {
  // Session.append takes any JSON object under a core type, and a store folds every event it writes
  // (SQLite in its commit round, PostgreSQL in its batch): a throw there took down the round.
  it('folds malformed core events without throwing, counting only what it can read', () => {
    const session = new Session(header(), [])
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0 })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: 'x', removedCount: 'all' })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [null] })
    session.append('user/message', { id: 'u', source: { kind: 'user' }, content: 5 })
    session.append('user/message', { id: 'v', source: { kind: 'user' }, content: [null, { type: 'text', text: 'hi' }] })
    session.append('turn/start', { turn: 'one' })
    session.append('turn/start', {})
    const fold = new LogSummaryFold(header())
    for (const event of session.events) fold.add(event)
    expect(fold.summary()).toEqual({ length: 7, lastActivity: session.events.at(-1)!.time, turns: 0, firstPrompt: '', pending: 1, queued: { 'next-turn': 1, 'next-step': 0 } })
  })

  it('never counts pending below zero when a damaged log removes more than is queued', () => {
    const session = new Session(header(), [])
    session.append('agent/inbox/spliced', { target: 'next-step', start: 0, inserted: [], removedCount: 1 })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage('a', { id: 'a' })] })
    expect(summarizeLog(session.header, session.events)).toMatchObject({ pending: 1, queued: { 'next-turn': 1, 'next-step': 0 } })
  })

  it('counts what splicing arrays leaves (the host\'s inbox fold), for damaged splices too (property)', () => {
    // Removals past a queue's end, negative or fractional bounds, strings, unknown queues: what
    // `queues[target].splice(start, removedCount ?? 0, ...inserted)` leaves where it can run at all.
    const value = fc.oneof(fc.integer({ min: -4, max: 6 }), fc.double({ min: -4, max: 6, noNaN: true }), fc.constantFrom(undefined, null, '1', 'x', 1e300, -1e300, [2]))
    const splice = fc.record({
      target: fc.constantFrom('next-turn', 'next-step', 'later', undefined),
      start: value,
      removedCount: value,
      inserted: fc.oneof({ arbitrary: fc.nat(3), weight: 4 }, { arbitrary: fc.constant(-1), weight: 1 }),
    })
    fc.assert(
      fc.property(fc.array(splice, { maxLength: 20 }), (splices) => {
        const session = new Session(header(), [])
        const queues: Record<string, unknown[]> = { 'next-turn': [], 'next-step': [] }
        for (const [i, { target, start, removedCount, inserted }] of splices.entries()) {
          const messages = inserted < 0 ? 'not an array' : Array.from({ length: inserted }, (_, k) => createUserMessage('m', { id: `m${i}-${k}` }))
          session.append('agent/inbox/spliced', { target, start, removedCount, inserted: messages } as never)
          if (target === 'next-turn' || target === 'next-step') {
            if (Array.isArray(messages)) queues[target]!.splice(start as number, (removedCount ?? 0) as number, ...messages)
          }
        }
        const summary = summarizeLog(header(), session.events)
        expect(summary.queued).toEqual({ 'next-turn': queues['next-turn']!.length, 'next-step': queues['next-step']!.length })
        expect(summary.pending).toBe(queues['next-turn']!.length + queues['next-step']!.length)
      }),
      { numRuns: 500 },
    )
  })
})

describe('LogSummaryFold state', () => {
  // A store that keeps the fold as a cache (JSONL's <id>.summary.json) saves it as JSON and folds on later.
  it('a fold saved as JSON and resumed folds on to what a whole fold gives, at any cut (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), fc.array(op, { maxLength: 12 }), fc.nat(), (seedOps, ops, cutAt) => {
        const { h, child } = forked(seedOps, ops)
        const cut = cutAt % (child.events.length + 1)
        const saved = JSON.parse(JSON.stringify(LogSummaryFold.of(h, child.events.slice(0, cut)).state())) as unknown
        const resumed = LogSummaryFold.fromState(saved)!
        for (const event of child.events.slice(cut)) resumed.add(event)
        expect(resumed.summary()).toEqual(summarizeLog(h, child.events))
      }),
      { numRuns: 200 },
    )
  })

  it('fromState refuses what is not a saved fold', () => {
    const state = LogSummaryFold.of(header(), []).state() as LogSummaryState
    const { queued: _, ...before } = state
    for (const bad of [null, 5, 'x', [], {}, { ...state, length: -1 }, { ...state, length: 1.5 }, before, { ...state, queued: [1] },
      { ...state, queued: [0, -1] }, { ...state, queued: { 'next-turn': 0, 'next-step': 0 } }, { ...state, queued: [0, 0.5] }, { ...state, queued: null },
      { ...before, pending: -1 }, { ...before, pending: 0.5 }, { ...before, pending: '1' }, { ...state, turns: null },
      { ...state, seedLength: undefined }, { ...state, firstPrompt: 3 }, { ...state, firstQueued: {} }, { ...state, lastActivity: '1' }]) {
      expect(LogSummaryFold.fromState(bad)).toBeUndefined()
    }
    expect(LogSummaryFold.fromState(state)?.summary()).toEqual(summarizeLog(header(), []))
  })

  // What a build before per-queue counts saved (JSONL's format-1 sidecar): the pending total alone.
  const pendingOnly = (state: LogSummaryState): LogSummaryPendingState => {
    const { queued, ...rest } = state
    return { ...rest, pending: queued[0] + queued[1] }
  }

  it('a state with the pending total alone folds on to what a whole fold gives, without queued, at any cut (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), fc.array(op, { maxLength: 12 }), fc.nat(), (seedOps, ops, cutAt) => {
        const { h, child } = forked(seedOps, ops)
        const cut = cutAt % (child.events.length + 1)
        const saved = JSON.parse(JSON.stringify(pendingOnly(LogSummaryFold.of(h, child.events.slice(0, cut)).state() as LogSummaryState))) as unknown
        const resumed = LogSummaryFold.fromState(saved)!
        for (const event of child.events.slice(cut)) resumed.add(event)
        const { queued, ...whole } = summarizeLog(h, child.events)
        // Exactly the full read's pending (the inbox's replay), and no split it cannot know.
        expect(resumed.summary()).toEqual(whole)
        expect(whole.pending).toBe(queued['next-turn'] + queued['next-step'])
        // Saved again, it is still a total alone: never counts per queue it does not have.
        expect(resumed.state()).toEqual(pendingOnly(LogSummaryFold.of(h, child.events).state() as LogSummaryState))
        expect(resumed.clone().summary()).toEqual(whole)
      }),
      { numRuns: 200 },
    )
  })

  it('a fold with the pending total alone never counts below zero, nor a splice to no queue', () => {
    const session = new Session(header(), [])
    session.append('agent/inbox/spliced', { target: 'next-step', start: 0, inserted: [], removedCount: 5 })
    session.append('agent/inbox/spliced', { target: 'later', start: 0, inserted: [createUserMessage('a', { id: 'a' })] } as never)
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage('b', { id: 'b' })] })
    const resumed = LogSummaryFold.fromState(pendingOnly(LogSummaryFold.of(header(), []).state() as LogSummaryState))!
    for (const event of session.events) resumed.add(event)
    expect(resumed.summary()).toEqual({ length: 3, lastActivity: session.events.at(-1)!.time, turns: 0, firstPrompt: 'a', pending: 1 })
    expect(resumed.summary().pending).toBe(summarizeLog(header(), session.events).pending)
  })
})

describe('LogSummaryFold.firstPromptFinal', () => {
  it('is true once a user\'s message was delivered, not while the first prompt is only queued or not a user\'s', () => {
    const session = new Session(header(), [])
    const fold = new LogSummaryFold(header())
    const add = () => fold.add(session.events.at(-1)!)
    new Inbox(session).splice('next-turn', 0, 0, [createUserMessage('queued', { id: 'q' })])
    add()
    expect([fold.firstPromptFinal, fold.summary().firstPrompt]).toEqual([false, 'queued'])
    session.append('user/message', createUserMessage('from a parent', { id: 'p', source: { kind: 'parent' } }))
    add()
    expect(fold.firstPromptFinal).toBe(false)
    session.append('user/message', createUserMessage('typed', { id: 'u' }))
    add()
    expect([fold.firstPromptFinal, fold.summary().firstPrompt]).toEqual([true, 'typed'])
  })
})

