import { describe, expect, it, vi } from 'vitest'
import { BosunError } from '../errors.js'
import { memoryStore } from '../store/memory.js'
import { harness, msg, timeline } from '../testing/harness.js'
import { holdWhen } from '../testing/sealer-fixtures.js'
import type { SessionEvent } from './events.js'
import { LOG } from './log-view.js'
import { enableLogPages, sealIdleSessions, sealingCandidates } from './sealer.js'
import { Session, sessionLog } from './session.js'

// The idle sweep (sealer.ts): which sessions it seals, and that a sealed session reads, runs and
// reopens as before. `sealIdleSessions()` runs a sweep now; one test lets the timer do it.

const tool = { name: 'lookup', description: 'Looks a key up.', parameters: { type: 'object' }, execute: () => 'value' }
const exchange = (i: number) => [{ toolCalls: [{ name: 'lookup', args: { key: `k${i}` } }] }, { text: `answer ${i}` }]

/** An agent that ran `turns` turns (a tool call and an answer each) on its own or the given store. */
async function ranTurns(turns: number, options: Parameters<typeof harness>[0] = {}) {
  const made = await harness({ responses: Array.from({ length: turns + 2 }, (_, i) => exchange(i)).flat(), tools: [tool], ...options })
  for (let i = 0; i < turns; i++) {
    made.agent.followup(msg(`question ${i}`, `q${i}`))
    await made.agent.whenIdle()
  }
  return made
}

const pagesOf = (session: Session) => sessionLog(session).pages
const json = (events: readonly SessionEvent[]) => JSON.stringify(events)

describe('the idle sweep', () => {
  it('seals an idle session up to its last turn/end (which stays live), and not a session whose turn is running', async () => {
    const { agent: idle } = await ranTurns(3)
    const hold = { held: false }
    const { agent: busy } = await ranTurns(2, { plugins: [holdWhen(hold)] })
    hold.held = true
    busy.followup('held')
    await vi.waitFor(() => expect(busy.session.events.some((event) => event.type === 'turn/start')).toBe(true), { timeout: 30_000 })
    const before = json(idle.session.events)
    const lastBefore = idle.session.last
    const busyBefore = busy.session.length

    await sealIdleSessions()

    const log = sessionLog(idle.session)
    expect(log.pages.length).toBeGreaterThan(0)
    // The log ends with turn/end: the one live event, the same object as before.
    expect(log.tail).toEqual([idle.session.eventAt(log.base)])
    expect(log.tail[0]!.type).toBe('turn/end')
    expect(json(idle.session.events)).toBe(before)
    expect(idle.session.last).toBe(lastBefore)
    expect(pagesOf(busy.session)).toEqual([])
    expect(busy.session.length).toBe(busyBefore)
    expect(busy.status).toBe('running')
    busy.abort()
    await busy.whenIdle()
    await Promise.all([idle.close(), busy.close()])
  })

  it('leaves events after the last turn/end live (a queued inject), and seals them after the next turn', async () => {
    const { agent } = await ranTurns(1)
    agent.inject('later')
    const pending = agent.session.last!
    await sealIdleSessions()
    expect(sessionLog(agent.session).base).toBe(pending.seq - 1) // the turn/end before it stays live too
    expect(agent.session.last).toBe(pending) // the tail's events are the objects appended
    agent.followup('question 1')
    await agent.whenIdle()
    await sealIdleSessions()
    expect(sessionLog(agent.session).tail.map((event) => event.type)).toEqual(['turn/end'])
    await agent.close()
  })

  it('a turn after sealing logs what the same turn logs on a session never sealed', async () => {
    const sealed = await ranTurns(2)
    const plain = await ranTurns(2, { logPages: false })
    await sealIdleSessions()
    expect(pagesOf(sealed.agent.session).length).toBeGreaterThan(0)
    expect(pagesOf(plain.agent.session)).toEqual([])
    for (const { agent } of [sealed, plain]) {
      agent.followup(msg('question 2', 'q2'))
      await agent.whenIdle()
    }
    expect(json(sealed.agent.session.events)).toBe(json(plain.agent.session.events))
    expect(timeline(sealed.agent)).toBe(timeline(plain.agent))
    // The model-visible history is the same.
    expect(JSON.stringify(sealed.agent.surface.messages)).toBe(JSON.stringify(plain.agent.surface.messages))
    await Promise.all([sealed.agent.close(), plain.agent.close()])
  })

  it('a sealed session\'s events is a read-only view: writes throw READ_ONLY, reads see later appends', async () => {
    const { agent } = await ranTurns(1)
    await sealIdleSessions()
    const events = agent.session.events as SessionEvent[]
    expect(Array.isArray(events)).toBe(true)
    let error: unknown
    try {
      events.push(events[0]!)
    } catch (caught) {
      error = caught
    }
    expect(BosunError.is(error, 'READ_ONLY')).toBe(true)
    const length = events.length
    agent.inject('after the seal')
    expect(events.length).toBe(length + 1)
    expect(events[length]).toBe(agent.session.last)
    expect(agent.session.eventAt(0)).toEqual(events[0])
    await agent.close()
  })

  it('does not seal an agent made with logPages: false, and a closed session leaves the sweep', async () => {
    const { agent: off } = await ranTurns(1, { logPages: false })
    const { agent: closed } = await ranTurns(1)
    await closed.close()
    await sealIdleSessions()
    expect(pagesOf(off.session)).toEqual([])
    expect(pagesOf(closed.session)).toEqual([])
    expect(sealingCandidates()).toBe(0)
    await off.close()
  })

  it('seals on its own once the log has not grown for idleMs (the timer)', async () => {
    const { agent } = await ranTurns(1, { logPages: { idleMs: 10, pageEvents: 4 } })
    await vi.waitFor(() => expect(pagesOf(agent.session).length).toBeGreaterThan(0), { timeout: 10_000, interval: 5 })
    expect(pagesOf(agent.session).every((page) => page.count <= 4)).toBe(true)
    await vi.waitFor(() => expect(sealingCandidates()).toBe(0), { timeout: 10_000, interval: 5 })
    await agent.close()
  })

  it('seals a long history a chunk at a time, yielding to the event loop between slices', async () => {
    const session = new Session({ id: 'long', version: 1, createdAt: 0 }, [], { now: () => 1_700_000_000_000 })
    session.append('turn/start', { turn: 1 })
    for (let i = 0; i < 20_000; i++) session.append('my-plugin/note', { i, text: `note ${i} of a long history` })
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const before = json(session.events)
    enableLogPages(session, { pageEvents: 64 }, undefined)
    let ranDuringTheSweep = false
    setImmediate(() => (ranDuringTheSweep = true))
    // ~20,000 events at a few µs each are far more than one 5 ms slice: the sweep must yield.
    expect(await sealIdleSessions()).toBe(1)
    expect(ranDuringTheSweep).toBe(true)
    const log = sessionLog(session)
    expect(log.tail.map((event) => event.type)).toEqual(['turn/end'])
    expect(log.pages.slice(0, -1).every((page) => page.count === 64)).toBe(true)
    expect(json(session.events)).toBe(before)
    await session.close()
  })

  it('refuses a bad logPages option, naming it', async () => {
    for (const logPages of [true, { idleMs: 0 }, { pageEvents: 1.5 }, { idle: 5 }]) {
      let error: unknown
      try {
        await harness({ logPages: logPages as never })
      } catch (caught) {
        error = caught
      }
      expect(BosunError.is(error, 'INVALID_ARGUMENT')).toBe(true)
      expect((error as Error).message).toContain('logPages')
    }
  })
})

describe('the memory store shares a sealed session\'s pages', () => {
  it('keeps the session\'s own pages, hands them to a reopen without decoding, and the reopened session reads and runs the same', async () => {
    const store = memoryStore()
    const { agent } = await ranTurns(3, { store, sessionId: 'shared' })
    await sealIdleSessions()
    const pages = pagesOf(agent.session)
    expect(pages.length).toBeGreaterThan(0)
    const before = json(agent.session.events)
    await agent.close()

    const opened = (await store.open('shared'))!
    const view = opened.events as unknown as { [LOG]: { pages: unknown } }
    expect(view[LOG].pages).toBe(pages) // the same page objects: the store held the session's log
    expect(json(opened.events)).toBe(before)
    await opened.writer.close()

    const { agent: resumed } = await ranTurns(0, { store, sessionId: 'shared', responses: exchange(9) })
    expect(pagesOf(resumed.session)).toBe(pages)
    expect(json(resumed.session.events)).toBe(before)
    resumed.followup('again')
    await resumed.whenIdle()
    const events = resumed.session.events
    expect(events.slice(JSON.parse(before).length).map((event) => event.type)).toContain('turn/end')
    expect(json((await store.open('shared'))!.events)).toBe(json(events))
    await resumed.close()
  })

  it('keeps stale-writer detection: a second writer after a seal makes the first stale', async () => {
    const store = memoryStore()
    const { agent } = await ranTurns(1, { store, sessionId: 'stale' })
    await sealIdleSessions()
    const second = (await store.open('stale'))!
    second.writer.append(Object.freeze({ seq: agent.session.length, time: 1, type: 'my-plugin/mark', data: {} }) as SessionEvent)
    let error: unknown
    try {
      agent.session.append('my-plugin/mark', {})
    } catch (caught) {
      error = caught
    }
    expect(BosunError.is(error, 'STALE_WRITER')).toBe(true)
    await second.writer.close()
  })
})
