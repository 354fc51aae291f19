import { describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import type { SessionEvent } from '../session/events.js'
import { Session } from '../session/session.js'
import { storeContract } from './contract.js'
import { memoryStore } from './memory.js'
import { keepsLogIn, type LogKeepingWriter, type StoredSession } from './types.js'

storeContract('memory', async () => ({ store: memoryStore() }))

const header = (id: string) => ({ id, version: 1, createdAt: 0 })
const sessionOn = (stored: StoredSession) => new Session(stored.header, stored.events, { writer: stored.writer, now: () => 1 })
const seqs = (events: readonly SessionEvent[] | undefined) => events?.map((e) => e.seq)
const refusal = (fn: () => unknown): unknown => {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}

describe('memory store: the session array is the stored log', () => {
  it('its writer takes over the array it was handed, and no other', async () => {
    const store = memoryStore()
    const created = await store.create(header('a'))
    const writer = created.writer as LogKeepingWriter
    expect(writer[keepsLogIn]([...created.events])).toBe(false)
    expect(writer[keepsLogIn](created.events)).toBe(true)
  })

  it('a Session on it holds each event once, in order, and the store gives the same log back', async () => {
    const store = memoryStore()
    const session = sessionOn(await store.create(header('a')))
    const appended = [session.append('turn/start', { turn: 1 }), session.append('turn/start', { turn: 2 }), session.append('turn/start', { turn: 3 })]
    expect(session.events).toEqual(appended)
    expect(session.length).toBe(3)
    const opened = await store.open('a')
    expect(opened?.events).toEqual(appended)
    expect(opened?.events).not.toBe(session.events) // open hands out a copy the caller owns
    expect((await store.list())[0]?.length).toBe(3)
  })

  it('a Session on a copy it was not handed pushes its events itself', async () => {
    const store = memoryStore()
    const stored = await store.create(header('a'))
    const session = new Session(stored.header, [...stored.events], { writer: stored.writer })
    session.append('turn/start', { turn: 1 })
    expect(seqs(session.events)).toEqual([0])
    expect(seqs((await store.open('a'))?.events)).toEqual([0])
  })

  it('a second Session that only reads leaves the first one writing (the first appender wins)', async () => {
    const store = memoryStore()
    const first = sessionOn(await store.create(header('a')))
    first.append('turn/start', { turn: 1 })
    const reader = sessionOn((await store.open('a'))!)
    expect(reader.length).toBe(1)
    first.append('turn/start', { turn: 2 })
    expect(seqs((await store.open('a'))?.events)).toEqual([0, 1])
    const error = refusal(() => reader.append('turn/start', { turn: 9 }))
    expect(BosunError.is(error, 'STALE_WRITER')).toBe(true)
    expect(reader.length).toBe(1)
    expect(seqs(first.events)).toEqual([0, 1])
  })

  it('a second Session that appends first makes the first one stale, with its log unchanged', async () => {
    const store = memoryStore()
    const first = sessionOn(await store.create(header('a')))
    first.append('turn/start', { turn: 1 })
    const second = sessionOn((await store.open('a'))!)
    second.append('turn/start', { turn: 2 })
    const error = refusal(() => first.append('turn/start', { turn: 3 }))
    expect(BosunError.is(error, 'STALE_WRITER')).toBe(true)
    expect(seqs(first.events)).toEqual([0])
    second.append('turn/start', { turn: 3 })
    const stored = await store.open('a')
    expect(stored?.events.map((e) => (e.data as { turn: number }).turn)).toEqual([1, 2, 3])
    expect(stored?.events).toEqual(second.events)
  })

  it('a writer without a Session that appends first leaves the first Session’s array alone', async () => {
    const store = memoryStore()
    const first = sessionOn(await store.create(header('a')))
    first.append('turn/start', { turn: 1 })
    const direct = (await store.open('a'))!
    direct.writer.append(Object.freeze({ seq: 1, time: 5, type: 'turn/start', data: { turn: 7 } }) as SessionEvent)
    expect(seqs(first.events)).toEqual([0])
    expect(BosunError.is(refusal(() => first.append('turn/start', { turn: 2 })), 'STALE_WRITER')).toBe(true)
    expect(seqs(first.events)).toEqual([0])
    expect((await store.open('a'))?.events.map((e) => e.time)).toEqual([1, 5])
  })

  it('a Session that lost the log to another is refused even at a seq the log has not reached', async () => {
    const store = memoryStore()
    const first = sessionOn(await store.create(header('a')))
    const second = sessionOn((await store.open('a'))!)
    second.append('turn/start', { turn: 1 })
    // first's seq is 0, the log's length 1: refused, not appended at 0 again
    expect(BosunError.is(refusal(() => first.append('turn/start', { turn: 2 })), 'STALE_WRITER')).toBe(true)
    expect(first.length).toBe(0)
    expect(seqs((await store.open('a'))?.events)).toEqual([0])
  })

  it('a closed store refuses the Session’s appends and leaves its log unchanged', async () => {
    const store = memoryStore()
    const session = sessionOn(await store.create(header('a')))
    session.append('turn/start', { turn: 1 })
    await store.close()
    expect(BosunError.is(refusal(() => session.append('turn/start', { turn: 2 })), 'STORE')).toBe(true)
    expect(session.length).toBe(1)
  })

  it('a Session built on a seeded session continues its seqs into the shared log', async () => {
    const store = memoryStore()
    const seed = [Object.freeze({ seq: 0, time: 1, type: 'session/end-seed', data: {} }) as SessionEvent]
    const session = sessionOn(await store.create(header('a'), seed))
    expect(session.append('turn/start', { turn: 1 }).seq).toBe(1)
    expect(seqs((await store.open('a'))?.events)).toEqual([0, 1])
    expect(seed).toHaveLength(1) // the seed array is the caller's, not the log
  })
})
