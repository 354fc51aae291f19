import { resolve } from 'node:path'
import { BosunError, ErrorCodes, LogSummaryFold, assertSessionId, invalidArgument, listedDelegation } from '@bosun/core'
import type { SessionEvent, SessionHeader, SessionSummary, Store, StoredSession } from '@bosun/core'
import { checkHeader, decodeHeader, decodeRow, encodeEvent, type StoredRow } from './codec.js'
import { openDatabase, type Connection, type ConnectionStats } from './database.js'
import { storeError } from './errors.js'
import { listFields, storedSummary, tailFrom } from './summary-row.js'
import { checkOptions, type SqliteStoreOptions } from './options.js'
import { MAX_EVENTS_PER_SESSION } from './schema.js'
import { SqliteWriter } from './writer.js'

/** A {@link Store} kept in one SQLite database file. */
export interface SqliteStore extends Store {
  readonly name: 'sqlite'
  /** The database file, as an absolute path. */
  readonly file: string
  /** One session's list item with its length (one read transaction, no log read), or `undefined`. */
  summary(id: string): Promise<(SessionSummary & { length: number }) | undefined>
  /** The events from `fromSeq` on, at most `limit` (default 1000): a range of keys, as long as what it returns. */
  readEvents(id: string, fromSeq: number, limit?: number): Promise<SessionEvent[]>
  /**
   * Deletes the session — its events, its summary and its row — in one committed transaction;
   * `false` when there is none. SESSION_LOCKED while a writer of it from this store is not closed.
   */
  remove(id: string): Promise<boolean>
}

/** @internal What tests may inspect: the open connection (if any) and its counters. */
export interface SqliteStoreInternals {
  connection(): Connection | undefined
  stats(): ConnectionStats | undefined
}

const internals = new WeakMap<Store, SqliteStoreInternals>()

/** @internal For tests: the connection and counters behind a store made by {@link sqliteStore}. */
export function inspectSqliteStore(store: Store): SqliteStoreInternals {
  const found = internals.get(store)
  if (!found) throw invalidArgument('inspectSqliteStore(): not a store made by sqliteStore().')
  return found
}

/**
 * A session store in one SQLite database file (WAL, `synchronous=FULL`): a `sessions` table of
 * headers and an `events` table keyed by `(session key << 32) | seq` (schema.ts: a run of chunk
 * events is one row; a database of layout 1 is migrated on first open). Appends are written behind in
 * batches, and the batches of all sessions flushing in the same tick share one transaction (group
 * commit, one savepoint per session); `await writer.flush()` resolves once its batch is committed.
 * The file (and its folder) is created on first use. Several stores, in one process or several,
 * may share the file; a writer whose view of a session is stale is refused with STALE_WRITER.
 *
 * @example
 * const store = sqliteStore({ file: '.bosun/sessions.sqlite' })
 * const agent = await createAgent({ model, store, sessionId: 'main' })
 */
export function sqliteStore(options: SqliteStoreOptions): SqliteStore {
  const { batchWindowMs } = checkOptions(options)
  const file = resolve(options.file)
  let connection: Connection | undefined
  let closed = false
  const writers = new Set<SqliteWriter>()

  const open = (): Connection => {
    if (closed) throw new BosunError(ErrorCodes.STORE, `SQLite store ${file} is closed.`, { details: { file } })
    connection ??= openDatabase(file)
    return connection
  }
  /** The writer of a session whose log is `events`; it keeps the list summary (`session_summaries`: summary-row.ts). */
  const writerFor = (c: Connection, header: SessionHeader, key: number, events: readonly SessionEvent[]): SqliteWriter => {
    const writer = new SqliteWriter(c, { id: header.id, key }, LogSummaryFold.of(header, events), batchWindowMs, (w) => writers.delete(w))
    writers.add(writer)
    return writer
  }

  const store: SqliteStore = {
    name: 'sqlite',
    file,

    async create(header: SessionHeader, seed: readonly SessionEvent[] = []): Promise<StoredSession> {
      if (typeof header !== 'object' || header === null) throw invalidArgument('create(header): header must be an object.')
      assertSessionId(header.id)
      checkHeader(header, file)
      if (!Array.isArray(seed)) throw invalidArgument(`create(): the seed of session "${header.id}" must be an array of events.`)
      const rows = seed.map((event, index) => {
        if (event?.seq !== index) {
          throw invalidArgument(`create(): seed event ${index} of session "${header.id}" has seq ${String(event?.seq)}; seeds are contiguous from 0.`)
        }
        return encodeEvent(event, header.id)
      })
      const c = open()
      const stored: SessionHeader = Object.freeze({ ...header })
      const summary = LogSummaryFold.of(stored, seed)
      let key: number
      try {
        key = c.createSession(stored, rows, storedSummary(summary))
      } catch (error) {
        throw storeError(file, `create session "${header.id}"`, error, {})
      }
      return { header: stored, events: [...seed], writer: writerFor(c, stored, key, seed) }
    },

    async open(id: string): Promise<StoredSession | undefined> {
      assertSessionId(id)
      const c = open()
      let loaded: ReturnType<Connection['loadSession']>
      try {
        loaded = c.loadSession(id)
      } catch (error) {
        throw storeError(file, `read session "${id}"`, error)
      }
      if (loaded === undefined) return undefined
      const header = decodeHeader(loaded.header, file, id)
      const events: SessionEvent[] = []
      for (const row of loaded.rows) decodeRow(row, events, file, id)
      return { header, events, writer: writerFor(c, header, loaded.key, events) }
    },

    async has(id: string): Promise<boolean> {
      assertSessionId(id)
      const c = open()
      try {
        return c.hasSession(id)
      } catch (error) {
        throw storeError(file, `read session "${id}"`, error)
      }
    },

    async header(id: string): Promise<SessionHeader | undefined> {
      assertSessionId(id)
      const c = open()
      let text: string | undefined
      try {
        text = c.readHeader(id)
      } catch (error) {
        throw storeError(file, `read session "${id}"`, error)
      }
      return text === undefined ? undefined : decodeHeader(text, file, id)
    },

    async summary(id: string) {
      assertSessionId(id)
      const c = open()
      let row: ReturnType<Connection['readSummary']>
      try {
        row = c.readSummary(id, tailFrom)
      } catch (error) {
        throw storeError(file, `read the summary of session "${id}"`, error)
      }
      if (row === undefined) return undefined
      const { createdAt, parent, length, summary, summaryLength, tail } = row
      // Read in one transaction with the rows' length (and the rows after a summary behind it): summary-row.ts.
      return { id, createdAt, ...(parent === null ? {} : { parent }), length, ...listFields(summary, summaryLength, length, tail, file, id) }
    },

    async readEvents(id: string, fromSeq: number, limit = 1000): Promise<SessionEvent[]> {
      assertSessionId(id)
      if (!Number.isSafeInteger(fromSeq) || fromSeq < 0) throw invalidArgument(`readEvents(): "fromSeq" must be a non-negative integer, got ${String(fromSeq)}.`)
      if (!Number.isSafeInteger(limit) || limit < 1) throw invalidArgument(`readEvents(): "limit" must be a positive integer, got ${String(limit)}.`)
      const c = open()
      let rows: StoredRow[] | undefined
      try {
        rows = c.readRange(id, fromSeq, Math.min(fromSeq + limit, MAX_EVENTS_PER_SESSION))
      } catch (error) {
        throw storeError(file, `read the events of session "${id}"`, error)
      }
      if (rows === undefined || rows.length === 0) return []
      // The first row holds `fromSeq` (a packed one may start before it); one that starts after it is a gap: CORRUPT_LOG.
      const first = Math.min(fromSeq, rows[0]!.seq)
      const events: SessionEvent[] = []
      for (const row of rows) decodeRow(row, events, file, id, first)
      return events.slice(fromSeq - first, fromSeq - first + limit)
    },

    async list(): Promise<SessionSummary[]> {
      const c = open()
      try {
        return c.listSessions(tailFrom).map(({ id, createdAt, parent, header, length, summary, summaryLength, tail }) => ({
          id,
          createdAt,
          ...(parent === null ? {} : { parent }),
          length,
          // Current, or folded on through the rows after it; an older build's that is behind the log is not used (summary-row.ts).
          ...listFields(summary, summaryLength, length, tail, file, id),
          ...listedDelegation(header),
        }))
      } catch (error) {
        throw storeError(file, 'list the sessions', error)
      }
    },

    async remove(id: string): Promise<boolean> {
      assertSessionId(id)
      const c = open()
      // A writer of this store would go on appending to a session that is gone. Writers of other
      // stores (processes) on the file are not known here: their next batch is refused (database.ts).
      if ([...writers].some((writer) => writer.session === id)) {
        throw new BosunError(
          ErrorCodes.SESSION_LOCKED,
          `SQLite store ${file}: session "${id}" is open for writing in this store (an agent or a writer has it): close it, then remove the session.`,
          { details: { file, session: id } },
        )
      }
      try {
        return c.removeSession(id)
      } catch (error) {
        throw storeError(file, `remove session "${id}"`, error, {})
      }
    },

    async close(): Promise<void> {
      if (closed) return
      closed = true
      const failures: unknown[] = []
      for (const writer of [...writers]) await writer.close().catch((error: unknown) => failures.push(error))
      connection?.close()
      connection = undefined
      if (failures.length === 1) throw failures[0]
      if (failures.length > 1) {
        throw new BosunError(ErrorCodes.STORE, `SQLite store ${file}: ${failures.length} sessions could not write their last events before closing.`, {
          cause: new AggregateError(failures),
          details: { file },
        })
      }
    },
  }
  internals.set(store, { connection: () => connection, stats: () => connection?.stats })
  return store
}
