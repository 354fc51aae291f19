import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BosunError, createStore, createUserMessage, summarizeLog } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import definition, { sqliteStore } from './index.js'
import { SCHEMA_VERSION } from './schema.js'
import { inspectSqliteStore, type SqliteStore } from './store.js'
import { event, header, rowKey, tempDatabase, withDatabase } from './testing/temp.js'
import type { SqliteWriter } from './writer.js'

let file: string
let dir: string
let cleanup: () => Promise<void>
const open: SqliteStore[] = []

/** A store on the test's file, closed after the test. */
const make = (options: { batchWindowMs?: number } = {}) => {
  const store = sqliteStore({ file, ...options })
  open.push(store)
  return store
}
/** A raw connection to the test's file, for inspecting and damaging it. */
const raw = <T>(fn: (db: Database.Database) => T): T => withDatabase(file, fn)
const seqsIn = (session: string) =>
  raw((db) => db.prepare('SELECT seq FROM session_events WHERE session_id = ? ORDER BY seq').pluck().all(session))
const failure = async (promise: Promise<unknown>): Promise<BosunError> => {
  try {
    await promise
  } catch (error) {
    expect(BosunError.is(error)).toBe(true)
    return error as BosunError
  }
  throw new Error('expected a rejection')
}

beforeEach(async () => {
  ;({ dir, file, cleanup } = await tempDatabase())
})
afterEach(async () => {
  for (const store of open.splice(0)) await store.close().catch(() => {})
  await cleanup()
})

describe('sqlite store — database', () => {
  it('uses WAL, synchronous=FULL and a busy timeout', async () => {
    const store = make()
    await store.list()
    const db = inspectSqliteStore(store).connection()!.db
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('synchronous', { simple: true })).toBe(2)
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000)
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    // WAL is a property of the file: another connection sees it too.
    expect(raw((other) => other.pragma('journal_mode', { simple: true }))).toBe('wal')
  })

  it('creates the file and its folder on first use, not before', async () => {
    file = join(dir, 'nested', 'deeper', 'sessions.sqlite')
    const store = make()
    expect(store.file).toBe(file)
    expect(existsSync(file)).toBe(false)
    await (await store.create(header('a'))).writer.close()
    expect(existsSync(file)).toBe(true)
  })

  it('refuses a database written by a newer layout, naming the file', async () => {
    await (await make().create(header('a'))).writer.close()
    raw((db) => db.pragma('user_version = 999'))
    const store = make()
    const error = await failure(store.list())
    expect(error.code).toBe('UNSUPPORTED_LOG_VERSION')
    expect(error.message).toContain(file)
    expect(error.details).toMatchObject({ file, version: 999 })
    await expect(store.open('a')).rejects.toSatisfy((e) => BosunError.is(e, 'UNSUPPORTED_LOG_VERSION'))
    // Refused without being changed.
    expect(raw((db) => db.pragma('user_version', { simple: true }))).toBe(999)
  })

  it('refuses a session whose header has a newer log format version', async () => {
    await (await make().create(header('a'))).writer.close()
    raw((db) => db.prepare(`UPDATE sessions SET header = json_set(header, '$.version', 999) WHERE id = 'a'`).run())
    const error = await failure(make().open('a'))
    expect(error.code).toBe('UNSUPPORTED_LOG_VERSION')
    expect(error.message).toContain(file)
    expect(error.message).toContain('"a"')
    await expect(make().create(header('b', { version: 999 }))).rejects.toSatisfy((e) => BosunError.is(e, 'UNSUPPORTED_LOG_VERSION'))
  })

  it('reports a gap in the seqs as CORRUPT_LOG naming the file, the session and the seq', async () => {
    const store = make()
    const s = await store.create(header('gap'))
    for (let i = 0; i < 5; i++) s.writer.append(event(i))
    await s.writer.close()
    raw((db) => db.prepare(`DELETE FROM events WHERE key = ${rowKey('gap', 2)}`).run())
    const error = await failure(make().open('gap'))
    expect(error.code).toBe('CORRUPT_LOG')
    expect(error.message).toContain(file)
    expect(error.message).toContain('"gap"')
    expect(error.message).toContain('seq 2')
    expect(error.details).toMatchObject({ file, session: 'gap', seq: 2 })
  })

  it('reports a missing first event and unparsable data as CORRUPT_LOG', async () => {
    const s = await make().create(header('bad'))
    for (let i = 0; i < 3; i++) s.writer.append(event(i))
    await s.writer.close()
    raw((db) => db.prepare(`UPDATE events SET data = '{"n":' WHERE key = ${rowKey('bad', 1)}`).run())
    const unparsable = await failure(make().open('bad'))
    expect(unparsable.code).toBe('CORRUPT_LOG')
    expect(unparsable.details).toMatchObject({ file, session: 'bad', seq: 1 })
    raw((db) => db.prepare(`DELETE FROM events WHERE key = ${rowKey('bad', 0)}`).run())
    const missing = await failure(make().open('bad'))
    expect(missing.code).toBe('CORRUPT_LOG')
    expect(missing.details).toMatchObject({ file, session: 'bad', seq: 0 })
  })

  it('reports a file that is not a database as STORE naming the file', async () => {
    writeFileSync(file, 'this is not a database, just some text that is long enough '.repeat(20))
    const error = await failure(make().list())
    expect(error.code).toBe('STORE')
    expect(error.message).toContain(file)
    expect(error.cause).toBeInstanceOf(Error)
  })

  it('lists sessions with their length', async () => {
    const store = make()
    const a = await store.create(header('a'), [event(0), event(1)])
    a.writer.append(event(2))
    await a.writer.close()
    await (await store.create(header('b', { parent: 'a', createdAt: 5 }))).writer.close()
    const none = { turns: 0, firstPrompt: null, pending: 0, queued: { 'next-turn': 0, 'next-step': 0 }, delegation: null }
    expect(await store.list()).toEqual([
      { id: 'b', createdAt: 5, parent: 'a', length: 0, lastActivity: 5, ...none },
      { id: 'a', createdAt: 1_700_000_000_000, length: 3, lastActivity: 1_700_000_000_002, ...none },
    ])
  })

  it('lists a summary only while it was written with the log it summarises', async () => {
    const store = make()
    const a = await store.create(header('a'))
    a.writer.append(Object.freeze({ seq: 0, time: 7, type: 'turn/start', data: { turn: 1 } }) as SessionEvent)
    await a.writer.close()
    const queued = { 'next-turn': 0, 'next-step': 0 }
    expect(await store.list()).toEqual([{ id: 'a', createdAt: 1_700_000_000_000, length: 1, lastActivity: 7, turns: 1, firstPrompt: null, pending: 0, queued, delegation: null }])
    // A build that does not keep summaries appended a row: the summary is of a shorter log; it keeps
    // its fold state, so the row after it is folded on (summary-row.ts) and the list is still exact.
    raw((db) => db.prepare(`INSERT INTO events (key, time, type, data) VALUES (${rowKey('a', 1)}, 8, 'turn/start', '{"turn":2}')`).run({ id: 'a' }))
    expect(await make().list()).toEqual([{ id: 'a', createdAt: 1_700_000_000_000, length: 2, lastActivity: 8, turns: 2, firstPrompt: null, pending: 0, queued, delegation: null }])
    // A summary without a fold state (an older build's) of a shorter log is not used.
    raw((db) => db.prepare(`UPDATE session_summaries SET summary = json_remove(summary, '$.state') WHERE id = 'a'`).run())
    expect(await make().list()).toEqual([{ id: 'a', createdAt: 1_700_000_000_000, length: 2, delegation: null }])
    expect(await make().summary('a')).toEqual({ id: 'a', createdAt: 1_700_000_000_000, length: 2 })
    // Opened and written again, the session's summary is whole again.
    const reopened = (await make().open('a'))!
    reopened.writer.append(event(2))
    await reopened.writer.close()
    expect(await make().list()).toEqual([{ id: 'a', createdAt: 1_700_000_000_000, length: 3, lastActivity: 1_700_000_000_002, turns: 2, firstPrompt: null, pending: 0, queued, delegation: null }])
    // A database from before summaries (the table dropped): listed with lengths only, and the table comes back.
    raw((db) => db.exec('DROP TABLE session_summaries'))
    expect(await make().list()).toEqual([{ id: 'a', createdAt: 1_700_000_000_000, length: 3, delegation: null }])
  })

  it('keeps a preview of a long first prompt, once, so the summary row stays small', async () => {
    // The row is rewritten by batches between turns: with the whole text of a 100,000-character first
    // prompt, 100 one-event batches wrote 0.74 MB instead of 0.22 MB. The fold state beside the
    // summary names which text the prompt is instead of holding it again.
    const store = make()
    const s = await store.create(header('long'))
    s.writer.append(Object.freeze({ seq: 0, time: 1, type: 'user/message', data: createUserMessage('x'.repeat(100_000), { id: 'u' }) }) as SessionEvent)
    for (let seq = 1; seq <= 3; seq++) {
      s.writer.append(event(seq))
      await s.writer.flush()
    }
    await s.writer.close()
    const bytes = raw((db) => db.prepare(`SELECT length(CAST(summary AS BLOB)) FROM session_summaries WHERE id = 'long'`).pluck().get())
    expect(bytes).toBeLessThan(400)
    const [listed] = await make().list()
    expect(listed).toMatchObject({ length: 4, firstPrompt: `${'x'.repeat(199)}…` })
    const opened = (await make().open('long'))!
    await opened.writer.close()
    expect(listed!.firstPrompt).toBe(summarizeLog(opened.header, opened.events).firstPrompt)
  })

  it('lists the preview of a whole first prompt that an earlier build kept in the summary row (no per-queue counts: none listed)', async () => {
    const store = make()
    const s = await store.create(header('old'))
    s.writer.append(Object.freeze({ seq: 0, time: 1, type: 'user/message', data: createUserMessage('y'.repeat(1_000), { id: 'u' }) }) as SessionEvent)
    await s.writer.close()
    const whole = JSON.stringify({ length: 1, lastActivity: 1, turns: 0, firstPrompt: 'y'.repeat(1_000), pending: 0 })
    raw((db) => db.prepare(`UPDATE session_summaries SET summary = ? WHERE id = 'old'`).run(whole))
    // That build kept no per-queue counts: `queued` is left out (a reader that needs it reads the log), the rest is used.
    expect(await make().list()).toEqual([{ id: 'old', createdAt: 1_700_000_000_000, length: 1, lastActivity: 1, turns: 0, firstPrompt: `${'y'.repeat(199)}…`, pending: 0, delegation: null }])
  })

  it('refuses a seed that is not contiguous from 0, writing nothing', async () => {
    const store = make()
    await expect(store.create(header('s'), [event(1)])).rejects.toSatisfy((e) => BosunError.is(e, 'INVALID_ARGUMENT'))
    expect(await store.open('s')).toBeUndefined()
  })

  it('refuses a duplicate id across two stores on the same file', async () => {
    await (await make().create(header('dup'))).writer.close()
    await expect(make().create(header('dup'))).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_EXISTS'))
  })

  it('keeps envelope fields other than seq, time, type and data (e.g. ignorable)', async () => {
    const s = await make().create(header('x'))
    const marked = Object.freeze({ ...event(0), ignorable: true }) as SessionEvent
    s.writer.append(marked)
    s.writer.append(event(1))
    await s.writer.close()
    const opened = await make().open('x')
    expect(opened?.events).toEqual([marked, event(1)])
    expect(JSON.stringify(opened?.events)).toBe(JSON.stringify([marked, event(1)]))
  })

  it('returns deep-frozen events', async () => {
    const s = await make().create(header('f'))
    s.writer.append(event(0, { nested: { list: [1, { deep: true }] } }))
    await s.writer.close()
    const opened = await make().open('f')
    const read = opened!.events[0]!
    expect(Object.isFrozen(read)).toBe(true)
    expect(Object.isFrozen((read.data as { nested: { list: unknown[] } }).nested.list[1])).toBe(true)
    expect(Object.isFrozen(opened!.header)).toBe(true)
  })
})

describe('sqlite store — write-behind', () => {
  it('commits a round holding a core event with malformed data (Session.append takes it): the summary fold does not throw', async () => {
    // The round folds each batch's events into its summary: a throw there escaped the round's
    // setImmediate (the process crashed) and left every session of the round unsettled.
    const store = make({ batchWindowMs: 60_000 })
    const a = await store.create(header('a'))
    const b = await store.create(header('b'))
    a.writer.append(Object.freeze({ seq: 0, time: 5, type: 'agent/inbox/spliced', data: Object.freeze({ target: 'next-turn', start: 0 }) }) as SessionEvent)
    a.writer.append(Object.freeze({ seq: 1, time: 6, type: 'user/message', data: Object.freeze({ id: 'u', source: { kind: 'user' }, content: 5 }) }) as SessionEvent)
    b.writer.append(event(0))
    await Promise.all([a.writer.flush(), b.writer.flush()])
    expect(inspectSqliteStore(store).stats()).toEqual({ commits: 1, rollbacks: 0, events: 3 })
    expect(await make().list()).toEqual([
      { id: 'a', createdAt: 1_700_000_000_000, length: 2, lastActivity: 6, turns: 0, firstPrompt: '', pending: 0, queued: { 'next-turn': 0, 'next-step': 0 }, delegation: null },
      { id: 'b', createdAt: 1_700_000_000_000, length: 1, lastActivity: 1_700_000_000_000, turns: 0, firstPrompt: null, pending: 0, queued: { 'next-turn': 0, 'next-step': 0 }, delegation: null },
    ])
    await a.writer.close()
    await b.writer.close()
  })

  it('commits N appends as one transaction on flush', async () => {
    const store = make({ batchWindowMs: 60_000 })
    const s = await store.create(header('batch'))
    const stats = inspectSqliteStore(store).stats()!
    for (let i = 0; i < 100; i++) s.writer.append(event(i))
    expect(stats.commits).toBe(0)
    expect(seqsIn('batch')).toEqual([])
    await s.writer.flush()
    expect(stats).toEqual({ commits: 1, rollbacks: 0, events: 100 })
    expect(seqsIn('batch')).toEqual([...Array(100).keys()])
    await s.writer.flush()
    expect(stats.commits).toBe(1)
    await s.writer.close()
  })

  it('writes behind after batchWindowMs without a flush, one transaction per window', async () => {
    const store = make({ batchWindowMs: 5 })
    const s = await store.create(header('timer'))
    const stats = inspectSqliteStore(store).stats()!
    s.writer.append(event(0))
    s.writer.append(event(1))
    s.writer.append(event(2))
    await vi.waitFor(() => expect(seqsIn('timer')).toEqual([0, 1, 2]), { timeout: 30_000 })
    expect(stats.commits).toBe(1)
    s.writer.append(event(3))
    await vi.waitFor(() => expect(seqsIn('timer')).toEqual([0, 1, 2, 3]), { timeout: 30_000 })
    expect(stats.commits).toBe(2)
    await s.writer.close()
  })

  it('batches appends of the same tick with batchWindowMs 0', async () => {
    const store = make({ batchWindowMs: 0 })
    const s = await store.create(header('zero'))
    for (let i = 0; i < 10; i++) s.writer.append(event(i))
    await vi.waitFor(() => expect(seqsIn('zero')).toHaveLength(10), { timeout: 30_000 })
    expect(inspectSqliteStore(store).stats()).toEqual({ commits: 1, rollbacks: 0, events: 10 })
    await s.writer.close()
  })

  it('rolls back a failed batch, reports it to flush (STORE, naming the file, with the cause), keeps it queued and retries it', async () => {
    const store = make({ batchWindowMs: 1 })
    const s = await store.create(header('retry'))
    s.writer.append(event(0))
    await s.writer.flush()
    raw((db) => db.exec(`
      CREATE TABLE test_switch (fail INTEGER);
      INSERT INTO test_switch VALUES (1);
      CREATE TRIGGER test_fail BEFORE INSERT ON events WHEN (SELECT fail FROM test_switch) = 1
      BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;
    `))
    const stats = inspectSqliteStore(store).stats()!
    for (let i = 1; i <= 3; i++) s.writer.append(event(i))
    const error = await failure(s.writer.flush())
    expect(error.code).toBe('STORE')
    expect(error.message).toContain(file)
    expect(error.message).toContain('disk on fire')
    expect((error.cause as Error).message).toContain('disk on fire')
    expect(stats.rollbacks).toBe(1)
    expect(seqsIn('retry')).toEqual([0])
    // Later appends queue behind the failed batch; the timer does not retry on its own.
    s.writer.append(event(4))
    await new Promise((r) => setTimeout(r, 30))
    expect(stats.rollbacks).toBe(1)
    expect(seqsIn('retry')).toEqual([0])
    await expect(s.writer.flush()).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
    raw((db) => db.exec('UPDATE test_switch SET fail = 0'))
    await s.writer.flush()
    expect(seqsIn('retry')).toEqual([0, 1, 2, 3, 4])
    expect((await make().open('retry'))?.events).toEqual([0, 1, 2, 3, 4].map((i) => event(i)))
    await s.writer.close()
  })

  it('refuses a stale writer across two stores with STALE_WRITER, leaving the database valid', async () => {
    const one = make()
    const two = make()
    const a = await one.create(header('stale'))
    a.writer.append(event(0))
    await a.writer.flush()
    const b = (await two.open('stale'))!
    b.writer.append(event(1, { from: 'b' }))
    await b.writer.flush()
    a.writer.append(event(1, { from: 'a' }))
    a.writer.append(event(2, { from: 'a' }))
    const error = await failure(a.writer.flush())
    expect(error.code).toBe('STALE_WRITER')
    expect(error.message).toContain(file)
    expect(error.details).toMatchObject({ session: 'stale', stored: 2, seq: 1 })
    expect(inspectSqliteStore(one).stats()?.rollbacks).toBe(1)
    // Still queued, still refused: nothing of a's view is written over b's.
    await expect(a.writer.flush()).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    await expect(a.writer.close()).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    expect(() => a.writer.append(event(3))).toThrow(/closed/)
    await b.writer.close()
    expect(raw((db) => db.pragma('integrity_check', { simple: true }))).toBe('ok')
    const opened = await make().open('stale')
    expect(opened?.events.map((e) => e.data)).toEqual([{ n: 0 }, { from: 'b' }])
  })

  it('refuses an append whose seq does not follow the writer\'s own', async () => {
    const s = await make().create(header('order'))
    expect(() => s.writer.append(event(1))).toThrow(/expected an append with seq 0/)
    s.writer.append(event(0))
    expect(() => s.writer.append(event(0))).toThrow(BosunError)
    await s.writer.close()
  })

  it('close() flushes every writer and closes the database; later use is refused', async () => {
    const store = make({ batchWindowMs: 60_000 })
    const s = await store.create(header('closing'))
    for (let i = 0; i < 7; i++) s.writer.append(event(i))
    await store.close()
    expect(inspectSqliteStore(store).connection()).toBeUndefined()
    expect(seqsIn('closing')).toEqual([...Array(7).keys()])
    expect(() => s.writer.append(event(7))).toThrow(BosunError)
    await expect(store.open('closing')).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
    await expect(store.list()).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
    await store.close()
  })

  it('interleaves writers of different sessions from two stores on one file', async () => {
    const one = make({ batchWindowMs: 0 })
    const two = make({ batchWindowMs: 0 })
    const a = await one.create(header('a'))
    const b = await two.create(header('b'))
    for (let i = 0; i < 20; i++) {
      a.writer.append(event(i))
      b.writer.append(event(i))
      if (i % 3 === 0) await Promise.all([a.writer.flush(), b.writer.flush()])
    }
    await Promise.all([a.writer.close(), b.writer.close()])
    expect(seqsIn('a')).toEqual([...Array(20).keys()])
    expect(seqsIn('b')).toEqual([...Array(20).keys()])
  })
})

describe('sqlite store — group commit', () => {
  it('commits the batches of N writers flushing concurrently in ONE transaction, each with its own events', async () => {
    const store = make({ batchWindowMs: 60_000 })
    const ids = Array.from({ length: 8 }, (_, i) => `g${i}`)
    const sessions = await Promise.all(ids.map((id) => store.create(header(id))))
    const stats = inspectSqliteStore(store).stats()!
    expect(stats).toEqual({ commits: 0, rollbacks: 0, events: 0 })
    sessions.forEach((s, w) => {
      for (let i = 0; i <= w; i++) s.writer.append(event(i, { writer: w, i }))
    })
    await Promise.all(sessions.map((s) => s.writer.flush()))
    expect(stats).toEqual({ commits: 1, rollbacks: 0, events: (8 * 9) / 2 })
    for (const [w, id] of ids.entries()) {
      expect(raw((db) => db.prepare('SELECT data FROM session_events WHERE session_id = ? ORDER BY seq').pluck().all(id))).toEqual(
        Array.from({ length: w + 1 }, (_, i) => JSON.stringify({ writer: w, i })),
      )
    }
    // The next concurrent round is one more transaction, whatever the number of writers.
    sessions.forEach((s, w) => s.writer.append(event(w + 1, { writer: w, i: w + 1 })))
    await Promise.all(sessions.map((s) => s.writer.flush()))
    expect(stats).toEqual({ commits: 2, rollbacks: 0, events: (8 * 9) / 2 + 8 })
    const other = make()
    for (const [w, id] of ids.entries()) expect((await other.open(id))?.events).toHaveLength(w + 2)
  })

  it('a writer whose flush and window timer fall in the same tick is written once, with rows appended until the round', async () => {
    const store = make({ batchWindowMs: 0 })
    const a = await store.create(header('a'))
    const b = await store.create(header('b'))
    const stats = inspectSqliteStore(store).stats()!
    a.writer.append(event(0))
    b.writer.append(event(0))
    const first = a.writer.flush()
    const second = a.writer.flush()
    // Appended after flush() but before the round runs: part of the same round.
    a.writer.append(event(1))
    await Promise.all([first, second])
    await vi.waitFor(() => expect(seqsIn('b')).toEqual([0]), { timeout: 30_000 })
    expect(seqsIn('a')).toEqual([0, 1])
    expect(stats.events).toBe(3)
    expect(stats.commits).toBeLessThanOrEqual(2)
    expect((a.writer as SqliteWriter).pending).toBe(0)
  })

  it('a stale writer among several rejects only its own flush; the others commit in the same transaction', async () => {
    const one = make({ batchWindowMs: 60_000 })
    const two = make()
    const stale = await one.create(header('stale'))
    stale.writer.append(event(0))
    await stale.writer.flush()
    const b = (await two.open('stale'))!
    b.writer.append(event(1, { from: 'b' }))
    await b.writer.flush()
    const good = await Promise.all(['x', 'y', 'z'].map((id) => one.create(header(id))))
    const stats = inspectSqliteStore(one).stats()!
    expect(stats).toEqual({ commits: 1, rollbacks: 0, events: 1 })
    for (const s of good) for (let i = 0; i < 3; i++) s.writer.append(event(i))
    stale.writer.append(event(1, { from: 'a' }))
    stale.writer.append(event(2, { from: 'a' }))
    // The stale writer flushes in the middle: the writers before and after it keep their rows.
    const results = await Promise.allSettled([good[0]!.writer.flush(), stale.writer.flush(), good[1]!.writer.flush(), good[2]!.writer.flush()])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
    const error = (results[1] as PromiseRejectedResult).reason as BosunError
    expect(BosunError.is(error, 'STALE_WRITER')).toBe(true)
    expect(error.message).toContain(file)
    expect(error.details).toMatchObject({ session: 'stale', stored: 2, seq: 1 })
    expect(stats).toEqual({ commits: 2, rollbacks: 1, events: 10 })
    for (const id of ['x', 'y', 'z']) expect(seqsIn(id)).toEqual([0, 1, 2])
    expect((await make().open('stale'))?.events.map((e) => e.data)).toEqual([{ n: 0 }, { from: 'b' }])
    // Still queued, still refused, alone again.
    expect((stale.writer as SqliteWriter).pending).toBe(2)
    await expect(stale.writer.flush()).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    await expect(stale.writer.close()).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    await b.writer.close()
    expect(raw((db) => db.pragma('integrity_check', { simple: true }))).toBe('ok')
  })

  it('a failed batch in a shared round rolls back alone, stays queued in order and is retried by the next flush', async () => {
    const store = make({ batchWindowMs: 60_000 })
    const ok = await store.create(header('ok'))
    const bad = await store.create(header('bad'))
    raw((db) => db.exec(`
      CREATE TABLE test_switch (fail INTEGER);
      INSERT INTO test_switch VALUES (1);
      CREATE TRIGGER test_fail BEFORE INSERT ON events WHEN NEW.key >> 32 = (SELECT key FROM sessions WHERE id = 'bad') AND (SELECT fail FROM test_switch) = 1
      BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;
    `))
    const stats = inspectSqliteStore(store).stats()!
    bad.writer.append(event(0))
    bad.writer.append(event(1))
    ok.writer.append(event(0))
    const [badResult, okResult] = await Promise.allSettled([bad.writer.flush(), ok.writer.flush()])
    expect(okResult.status).toBe('fulfilled')
    expect(badResult.status).toBe('rejected')
    const error = (badResult as PromiseRejectedResult).reason as BosunError
    expect(BosunError.is(error, 'STORE')).toBe(true)
    expect(error.message).toContain('disk on fire')
    expect(error.details).toMatchObject({ session: 'bad', seq: 0 })
    expect(stats).toEqual({ commits: 1, rollbacks: 1, events: 1 })
    expect(seqsIn('ok')).toEqual([0])
    expect(seqsIn('bad')).toEqual([])
    bad.writer.append(event(2))
    raw((db) => db.exec('UPDATE test_switch SET fail = 0'))
    await bad.writer.flush()
    expect(seqsIn('bad')).toEqual([0, 1, 2])
    expect(stats).toEqual({ commits: 2, rollbacks: 1, events: 4 })
  })

  it('an error that abandons the whole transaction rejects every flush of the round; all batches stay queued and are retried', async () => {
    const store = make({ batchWindowMs: 60_000 })
    const ok = await store.create(header('ok'))
    const bad = await store.create(header('bad'))
    // RAISE(ROLLBACK) ends the whole transaction, like SQLITE_FULL or an I/O error would.
    raw((db) => db.exec(`
      CREATE TABLE test_switch (fail INTEGER);
      INSERT INTO test_switch VALUES (1);
      CREATE TRIGGER test_fail BEFORE INSERT ON events WHEN NEW.key >> 32 = (SELECT key FROM sessions WHERE id = 'bad') AND (SELECT fail FROM test_switch) = 1
      BEGIN SELECT RAISE(ROLLBACK, 'transaction lost'); END;
    `))
    const stats = inspectSqliteStore(store).stats()!
    ok.writer.append(event(0))
    bad.writer.append(event(0))
    // ok's batch is written (and its savepoint released) before bad's ends the transaction.
    const results = await Promise.allSettled([ok.writer.flush(), bad.writer.flush()])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    for (const r of results) expect(((r as PromiseRejectedResult).reason as Error).message).toContain('transaction lost')
    expect(stats).toEqual({ commits: 0, rollbacks: 2, events: 0 })
    expect(seqsIn('ok')).toEqual([])
    expect(seqsIn('bad')).toEqual([])
    expect((ok.writer as SqliteWriter).pending).toBe(1)
    raw((db) => db.exec('UPDATE test_switch SET fail = 0'))
    ok.writer.append(event(1))
    await Promise.all([ok.writer.flush(), bad.writer.flush()])
    expect(seqsIn('ok')).toEqual([0, 1])
    expect(seqsIn('bad')).toEqual([0])
    expect(stats).toEqual({ commits: 1, rollbacks: 2, events: 3 })
  })

  it('close() writes a pending round before closing the database, and refuses appends from the moment it is called', async () => {
    const store = make({ batchWindowMs: 0 })
    const a = await store.create(header('a'))
    const b = await store.create(header('b'))
    a.writer.append(event(0))
    b.writer.append(event(0))
    const flushed = b.writer.flush()
    const closing = a.writer.close()
    expect(a.writer.close()).toBe(closing)
    expect(() => a.writer.append(event(1))).toThrow(/closed/)
    await store.close()
    await closing
    await flushed
    expect(seqsIn('a')).toEqual([0])
    expect(seqsIn('b')).toEqual([0])
  })
})

describe('sqlite store — options and definition', () => {
  it('validates options from code', () => {
    expect(() => sqliteStore({ file: '' })).toThrow('$.file: must not be empty')
    expect(() => sqliteStore({ file: 'x', batchWindowMs: -1 })).toThrow(/batchWindowMs/)
    expect(() => sqliteStore({ file: 'x', batchWindowMs: 1.5 })).toThrow(/batchWindowMs/)
    expect(() => sqliteStore(undefined as never)).toThrow(BosunError)
  })

  it('is a store definition whose relative file resolves from the config folder', async () => {
    expect(definition).toMatchObject({ kind: 'bosun-store', name: 'store-sqlite' })
    const store = (await createStore(definition, { file: '.bosun/sessions.sqlite', batchWindowMs: 0 }, { baseDir: dir })) as SqliteStore
    open.push(store)
    expect(store.file).toBe(join(dir, '.bosun', 'sessions.sqlite'))
    await (await store.create(header('cfg'))).writer.close()
    expect(existsSync(join(dir, '.bosun', 'sessions.sqlite'))).toBe(true)
  })

  it('refuses options that do not match the schema', async () => {
    for (const options of [{}, { file: 1 }, { file: 'a', extra: true }, { file: 'a', batchWindowMs: -1 }, { file: 'a', batchWindowMs: 0.5 }]) {
      await expect(createStore(definition, options, { baseDir: dir })).rejects.toSatisfy((e) => BosunError.is(e, 'PLUGIN_OPTIONS_INVALID'))
    }
  })
})
