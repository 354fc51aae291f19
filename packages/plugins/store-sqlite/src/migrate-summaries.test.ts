// The migration is followed by the list summary of every session that has no current one, each
// log read holding no write lock (reading them all takes seconds on a large database): a session
// of layout 1 (or of layout 2 never written by a build that keeps summaries) is listed with every
// field at once, not only after its next batch, so a host never reads its log to list it.
import { describe, expect, it } from 'vitest'
import { BosunError, createUserMessage, summarizeLog } from '@bosun/core'
import type { SessionEvent, SessionSummary } from '@bosun/core'
import { openDatabase } from './database.js'
import { writeLayout1 } from './testing/layout-1.js'
import { writeLayout2 } from './testing/layout-2.js'
import { tempStores } from './testing/stores.js'
import { header } from './testing/temp.js'

const { file, make, raw } = tempStores()
/** The stored summaries, by session: the length each was written at and its JSON, parsed. */
const storedSummaries = () =>
  Object.fromEntries(
    raw((db) => db.prepare('SELECT id, length, summary FROM session_summaries ORDER BY id').all() as { id: string; length: number; summary: string }[])
      .map(({ id, length, summary }) => [id, { length, summary: JSON.parse(summary) as unknown }]),
  )

const at = (seq: number, type: string, data: unknown): SessionEvent => Object.freeze({ seq, time: 1_700_000_000_000 + seq * 1000, type, data }) as SessionEvent
/** A log that moves every list field: a user's prompt, a turn, a queued message, a chunk run. */
const talk = (prompt: string): SessionEvent[] => [
  at(0, 'user/message', createUserMessage(prompt, { id: 'u0', source: { kind: 'user' } })),
  at(1, 'turn/start', { turn: 1 }),
  at(2, 'agent/inbox/spliced', { target: 'next-step', start: 0, inserted: [createUserMessage('later', { id: 'q0' })] }),
  at(3, 'assistant/chunk', { chunk: { type: 'text-delta', text: 'he' } }),
  at(4, 'assistant/chunk', { chunk: { type: 'text-delta', text: 'llo' } }),
]
/** A log that only queues: its first prompt is the queued message's. */
const queuedOnly: SessionEvent[] = [at(0, 'agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage('queued first', { id: 'q1' })] })]

const FIELDS = ['length', 'lastActivity', 'turns', 'firstPrompt', 'pending', 'queued'] as const
const fieldsOf = (entry: SessionSummary | undefined) => Object.fromEntries(FIELDS.map((field) => [field, entry?.[field]]))

describe('migration summaries', () => {
  it('a database of layout 1: every session is listed with its full summary right after the migration, before any write', async () => {
    const logs = { a: talk('hello there'), b: queuedOnly, empty: [] }
    writeLayout1(file(), logs)
    const store = make()
    const listed = await store.list()
    expect(listed.map((entry) => entry.id)).toEqual(['a', 'b', 'empty'])
    for (const [id, events] of Object.entries(logs)) {
      const expected = summarizeLog(header(id), events)
      expect(fieldsOf(listed.find((entry) => entry.id === id)), id).toEqual(expected)
      expect(fieldsOf(await store.summary(id)), id).toEqual(expected)
      // The summary, and the fold state a later reader folds on from (summary-row.ts).
      expect(storedSummaries()[id], id).toEqual({ length: events.length, summary: { ...expected, state: expect.any(Object) } })
    }
    // The log goes on from the migrated summary.
    const a = (await store.open('a'))!
    a.writer.append(at(5, 'turn/start', { turn: 2 }))
    await a.writer.close()
    expect(fieldsOf((await make().list())[0])).toEqual(summarizeLog(header('a'), [...logs.a, at(5, 'turn/start', { turn: 2 })]))
  })

  it('a database of layout 2: a session without a current summary gets one; a current one is left as it is', async () => {
    writeLayout2(file(), { none: talk('never summarised'), stale: talk('stale one'), old: queuedOnly, current: talk('current') })
    const planted = { ...summarizeLog(header('current'), talk('current')), firstPrompt: 'planted' }
    const { queued: _, ...withoutQueued } = summarizeLog(header('old'), queuedOnly)
    raw((db) => {
      const insert = db.prepare('INSERT INTO session_summaries VALUES (?, ?, ?)')
      // Of a shorter log (an earlier build's), without `queued` (before 2e4c91a), and current.
      insert.run('stale', 2, JSON.stringify(summarizeLog(header('stale'), talk('stale one').slice(0, 2))))
      insert.run('old', 1, JSON.stringify(withoutQueued))
      insert.run('current', 5, JSON.stringify(planted))
    })
    const listed = await make().list()
    expect(fieldsOf(listed.find((entry) => entry.id === 'none'))).toEqual(summarizeLog(header('none'), talk('never summarised')))
    expect(fieldsOf(listed.find((entry) => entry.id === 'stale'))).toEqual(summarizeLog(header('stale'), talk('stale one')))
    expect(fieldsOf(listed.find((entry) => entry.id === 'old'))).toEqual(summarizeLog(header('old'), queuedOnly))
    // Not read again: its summary is the one stored.
    expect(storedSummaries()['current']).toEqual({ length: 5, summary: planted })
  })

  it('are written after the migration, holding no write lock while a log is read: another connection writes meanwhile', () => {
    writeLayout1(file(), { a: talk('first'), b: talk('second') })
    // What another process writes: a table of its own.
    raw((db) => db.exec('CREATE TABLE other_writes (id TEXT NOT NULL)'))
    const versions: unknown[] = []
    const connection = openDatabase(file(), {
      summaryHooks: {
        // No busy wait (timeout 0): a write lock held by the migration fails the write at once.
        beforeFold: (id) => raw((db) => {
          db.pragma('busy_timeout = 0')
          db.prepare('INSERT INTO other_writes VALUES (?)').run(id)
          versions.push(db.pragma('user_version', { simple: true }))
        }),
      },
    })
    connection.close()
    // The migration had committed, and each write went through while the summaries were written.
    expect(versions).toEqual([3, 3])
    expect(raw((db) => db.prepare('SELECT id FROM other_writes ORDER BY id').pluck().all())).toEqual(['a', 'b'])
    expect(Object.keys(storedSummaries())).toEqual(['a', 'b'])
  })

  it('a summary that cannot be written is left out: the migration stands, the session is listed with its length', async () => {
    writeLayout2(file(), { a: talk('hello') })
    // A table that refuses every row, in place of the summaries table.
    raw((db) => db.exec('DROP TABLE session_summaries; CREATE TABLE session_summaries (id TEXT PRIMARY KEY NOT NULL, length INTEGER NOT NULL CHECK (length < 0), summary TEXT NOT NULL)'))
    const listed = await make().list()
    expect(listed.map(({ id, length }) => ({ id, length }))).toEqual([{ id: 'a', length: 5 }])
    expect(raw((db) => db.pragma('user_version', { simple: true }))).toBe(3)
    expect(raw((db) => db.prepare('SELECT COUNT(*) FROM session_summaries').pluck().get())).toBe(0)
  })

  it('a session that cannot be read gets no summary and does not stop the migration', async () => {
    writeLayout1(file(), { good: talk('fine'), gap: [at(0, 'turn/start', { turn: 1 }), at(2, 'turn/start', { turn: 2 })], bad: talk('bad json') })
    raw((db) => db.exec(`UPDATE events SET data = 'S3CR3T' WHERE session_id = 'bad' AND seq = 1`))
    const store = make()
    const listed = await store.list()
    expect(fieldsOf(listed.find((entry) => entry.id === 'good'))).toEqual(summarizeLog(header('good'), talk('fine')))
    expect(Object.keys(storedSummaries())).toEqual(['good'])
    // Listed with its length alone, as before; opening it says what is wrong.
    expect(listed.find((entry) => entry.id === 'gap')).toEqual({ id: 'gap', createdAt: 1_700_000_000_000, length: 3, delegation: null })
    expect(BosunError.is(await store.open('gap').catch((e: unknown) => e), 'CORRUPT_LOG')).toBe(true)
    expect(BosunError.is(await store.open('bad').catch((e: unknown) => e), 'CORRUPT_LOG')).toBe(true)
  })
})
