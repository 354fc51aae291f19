import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import { BosunError, ErrorCodes, LogSummaryFold, assertSessionId, invalidArgument, listedDelegation, summarizeLog, summaryFields } from '@bosun/core'
import type { SessionEvent, SessionHeader, SessionSummary, Store, StoredSession } from '@bosun/core'
import { checkHeader, decodeHeader, decodeRow, encodeEvent, type StoredRow } from './codec.js'
import { openDatabase, type Database } from './database.js'
import { sessionLocked, storeError } from './errors.js'
import { Leases, type Lease, type LeaseHolder } from './leases.js'
import { GroupCommit } from './group-commit.js'
import { Mailbox } from './mailbox.js'
import { Notifier } from './notifier.js'
import { resolveOptions, type PostgresStoreOptions } from './options.js'
import { removalStatements, removeSession } from './removal.js'
import { Watcher, type WatchOptions } from './watch.js'
import { PostgresWriter } from './writer.js'

/** A {@link Store} kept in PostgreSQL, with the lease, mailbox and wake-up primitives of a cluster of hosts. */
export interface PostgresStore extends Store {
  readonly name: 'postgres'
  /** `postgres://host:port/db` (no credentials), as messages name it. */
  readonly database: string
  /** This store's name in lease rows. */
  readonly owner: string
  /**
   * Connects and prepares the schema now — creates or migrates it, or refuses it (a layout newer
   * than this build, another application's tables) — as the store's first operation otherwise
   * would, and rejects with the error that operation would get: STORE saying what to check for a
   * wrong password, a database that does not exist, nothing listening at the URL. The URL's
   * password is never in it. A failed call is tried again by the next one. What a server calls
   * before it listens: the store connects lazily, so a store it cannot use would fail every request.
   */
  ready(): Promise<void>
  /** Reads a session without taking its lease (a consistent snapshot); `undefined` if there is none. */
  read(id: string): Promise<{ header: SessionHeader; events: readonly SessionEvent[] } | undefined>
  /**
   * The events of a session from `fromSeq` on, in order, at most `limit` (default 1000): an index
   * range, whatever the history's length — what a stream resumed at a seq reads. Empty for an
   * unknown session or nothing new.
   */
  readEvents(id: string, fromSeq: number, limit?: number): Promise<SessionEvent[]>
  /**
   * One session's list item as `list()` gives it, `delegation` aside (one row, no log read, no
   * header): `length` is the number of events committed, read with the summary beside it;
   * `undefined` for no such session.
   */
  summary(id: string): Promise<(SessionSummary & { length: number }) | undefined>
  /**
   * Deletes the session — its events, summary, lease and mailbox — in one transaction, and
   * notifies the watchers of every store on the schema (`onRemoved`); `false` when there is none.
   * SESSION_LOCKED while a writer of this store has it or a live lease holds it (naming the
   * holder); an expired lease does not block.
   */
  remove(id: string): Promise<boolean>
  /**
   * The sessions mid-turn: a committed `turn/start` whose `turn/end` is not committed yet,
   * whichever host runs them (one query on a partial index, no log read). A dead host's session
   * stays here until the host that takes it over ends the interrupted turn.
   */
  runningSessions(): Promise<string[]>
  /**
   * One session's status as `runningSessions` reads it (one row, no log read): `running` mid-turn,
   * `idle` after a `turn/end`; `null` when no turn has been committed since the status is kept (a
   * new session, or one a database of layout 1 held); `undefined` when there is no such session.
   */
  sessionStatus(id: string): Promise<'running' | 'idle' | null | undefined>
  /** Who holds a session's lease (owner, epoch, ms left on the database clock), or `undefined` if none ever did. */
  leaseHolder(id: string): Promise<LeaseHolder | undefined>
  /**
   * What a host that does not have the session open checks on a mailbox wake-up, in one query
   * (no log read, no lease taken): `heldElsewhere` when another owner holds a live lease on the
   * session or on one of its subagent ancestors (a child is opened through its parent, so `open`
   * would be refused), `pendingMail` when it has mail neither delivered nor done; `undefined` for
   * no such session. A snapshot: `open` stays the one that decides.
   */
  wakeCheck(id: string): Promise<{ heldElsewhere: boolean; pendingMail: boolean } | undefined>
  /** Sessions whose lease ran out without being released (their host died): what failover resumes. */
  expiredLeases(limit?: number): Promise<Array<{ id: string; owner: string; epoch: string }>>
  /** Renews this store's leases now (they are renewed every third of `leaseTtlMs` anyway). */
  renewLeases(): Promise<void>
  /**
   * Calls `listener` when a lease of this store is found taken over (at a renewal, or by a fenced
   * write): the session's writer can no longer write, and its agent should be closed at once.
   * `named`, for a lease a renewal found taken over: the same report naming who holds the session
   * now, once read (for a log line; `error` itself when the read fails; never rejects). Returns
   * the unsubscribe function.
   */
  onLeaseLost(listener: (session: string, error: Error, named?: Promise<Error>) => void): () => void
  /** Messages any host admits for a session's lease owner (see mailbox.ts). */
  readonly mailbox: Mailbox
  /** Starts a LISTEN connection with polling as the fallback, for stream and mailbox wake-ups (see watch.ts). */
  watch(options?: WatchOptions): Watcher
}

/**
 * A session store in PostgreSQL (through `pg`): tables `sessions`, `session_events` keyed by
 * `(session_id, seq)`, `session_leases` and `session_mailbox` in one schema (created or migrated
 * on first use). Appends are written behind, one statement — one transaction — per batch;
 * `await writer.flush()` resolves once it is committed. `create` and `open` take the session's
 * lease (SESSION_LOCKED while another live owner holds it); every batch is fenced by it.
 *
 * @example
 * const store = postgresStore({ urlEnv: 'BOSUN_PG_URL' })
 * const agent = await createAgent({ model, store, sessionId: 'main' })
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  const resolved = resolveOptions(options)
  const owner = resolved.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  const db: Database = openDatabase(resolved)
  const lostListeners = new Set<(session: string, error: Error, named?: Promise<Error>) => void>()
  const leases = new Leases(db, owner, resolved.leaseTtlMs, (lease, error, named) => {
    for (const listener of lostListeners) listener(lease.session, error, named)
  })
  const writers = new Map<string, PostgresWriter>()
  /** Sessions an `open` of this store is taking: a second one would take the lease again (a new epoch) and fence the first. */
  const opening = new Set<string>()
  const watchers = new Set<Watcher>()
  const removal = removalStatements(db.schema)
  let closed = false

  const ensureOpen = () => {
    if (closed) throw new BosunError(ErrorCodes.STORE, `PostgreSQL store ${db.name} is closed.`, { details: { database: db.name } })
  }
  const notifier = new Notifier(db)
  const writerHost = {
    db,
    windowMs: resolved.batchWindowMs,
    commits: new GroupCommit(db, (session, length, status) => {
      notifier.appended(session, length)
      if (status !== null) notifier.statusChanged(session, status)
    }, (lease, error) => leases.lost(lease, error)),
    release: async (writer: PostgresWriter) => {
      if (writers.get(writer.session) === writer) writers.delete(writer.session)
      await leases.release(writer.lease)
    },
  }
  /** The writer of a session whose log is `events`; it writes the list summary (`sessions.summary`) with every batch. */
  const writerFor = (header: SessionHeader, events: readonly SessionEvent[], lease: Lease): PostgresWriter => {
    const session = header.id
    const writer = new PostgresWriter(writerHost, session, LogSummaryFold.of(header, events), lease)
    writers.set(session, writer)
    return writer
  }
  const loadEvents = async (id: string, from: number, to: number, limit: number): Promise<SessionEvent[]> => {
    const { rows } = await db.query<StoredRow>(db.sql.selectEvents, [id, from, to, limit])
    const events: SessionEvent[] = []
    for (const row of rows) decodeRow(row, events, db.name, id, from + events.length)
    return events
  }

  const store: PostgresStore = {
    name: 'postgres',
    database: db.name,
    owner,
    mailbox: new Mailbox(db, owner, { ensureOpen, leaseOf: (session) => writers.get(session)?.lease, posted: (session, id) => notifier.posted(session, id), lost: (lease, error) => leases.lost(lease, error) }),

    async ready() {
      ensureOpen()
      await db.ready()
    },

    async create(header, seed = []) {
      ensureOpen()
      if (typeof header !== 'object' || header === null) throw invalidArgument('create(header): header must be an object.')
      assertSessionId(header.id)
      checkHeader(header, db.name)
      if (!Array.isArray(seed)) throw invalidArgument(`create(): the seed of session "${header.id}" must be an array of events.`)
      const rows = seed.map((event, index) => {
        if (event?.seq !== index) throw invalidArgument(`create(): seed event ${index} of session "${header.id}" has seq ${String(event?.seq)}; seeds are contiguous from 0.`)
        return encodeEvent(event, header.id)
      })
      const stored: SessionHeader = Object.freeze({ ...header })
      let epoch: string
      try {
        epoch = await db.transaction(async (client) => {
          const summary = JSON.stringify(summarizeLog(header, seed))
          const created = await client.query(db.sql.insertSession, [header.id, JSON.stringify(header), header.createdAt, header.parent ?? null, rows.length, summary])
          if (created.rowCount === 0) {
            throw new BosunError(ErrorCodes.SESSION_EXISTS, `PostgreSQL store ${db.name}: session "${header.id}" already exists.`, { details: { database: db.name, session: header.id } })
          }
          // "A session was made, by this owner" (a fork and a subagent's child are made here too).
          // Inside the transaction: delivered at its commit, never for a create rolled back. It
          // holds PostgreSQL's notify lock until the commit is flushed (notifier.ts): the appends'
          // NOTIFYs wait that long, once per create; the appends themselves do not.
          await client.query('SELECT pg_notify($1, $2)', [db.channels.sessions, `${header.id} ${owner}`])
          if (rows.length > 0) {
            await client.query(db.sql.insertEvents, [header.id, rows.map((r) => r.seq), rows.map((r) => r.type), rows.map((r) => r.time), rows.map((r) => r.data), rows.map((r) => r.extra)])
          }
          return (await client.query<{ epoch: string }>(db.leaseSql.acquire, [header.id, owner, resolved.leaseTtlMs])).rows[0]!.epoch
        })
      } catch (error) {
        throw storeError(db, `create session "${header.id}"`, error)
      }
      const lease = leases.hold({ session: header.id, owner, epoch })
      return { header: stored, events: [...seed], writer: writerFor(stored, seed, lease) }
    },

    async open(id) {
      ensureOpen()
      assertSessionId(id)
      if (writers.has(id) || opening.has(id)) throw sessionLocked(db.name, id, 'this store')
      opening.add(id)
      try {
        const lease = await leases.acquire(id)
        if (lease === undefined) return undefined
        try {
          // The lease is ours: no other writer can append while we read.
          const found = await store.read(id)
          if (found === undefined) throw new BosunError(ErrorCodes.STORE, `PostgreSQL store ${db.name}: session "${id}" vanished while it was opened.`, { details: { database: db.name, session: id } })
          return { header: found.header, events: found.events as SessionEvent[], writer: writerFor(found.header, found.events, lease) }
        } catch (error) {
          await leases.release(lease).catch(() => {})
          throw error
        }
      } finally {
        opening.delete(id)
      }
    },

    async header(id) {
      ensureOpen()
      assertSessionId(id)
      let found: { header: string } | undefined
      try {
        found = (await db.query<{ header: string; length: number }>(db.sql.selectSession, [id])).rows[0]
      } catch (error) {
        throw storeError(db, `read session "${id}"`, error, { session: id })
      }
      return found === undefined ? undefined : decodeHeader(found.header, db.name, id)
    },

    async read(id) {
      ensureOpen()
      assertSessionId(id)
      let found: { header: string; length: number } | undefined
      try {
        found = (await db.query<{ header: string; length: number }>(db.sql.selectSession, [id])).rows[0]
      } catch (error) {
        throw storeError(db, `read session "${id}"`, error, { session: id })
      }
      if (found === undefined) return undefined
      const header = decodeHeader(found.header, db.name, id)
      let events: SessionEvent[]
      try {
        // Up to the length read with the header: a batch committed meanwhile is left out, whole.
        events = await loadEvents(id, 0, found.length, found.length + 1)
      } catch (error) {
        throw storeError(db, `read session "${id}"`, error, { session: id })
      }
      if (events.length !== found.length) {
        throw storeError(db, `read session "${id}"`, new Error(`the session has ${found.length} events but ${events.length} are stored: the event with seq ${events.length} is missing`), { session: id })
      }
      return { header, events }
    },

    async summary(id) {
      ensureOpen()
      assertSessionId(id)
      type Row = { createdAt: number; parent: string | null; length: number; summary: string | null }
      let row: Row | undefined
      try {
        row = (await db.query<Row>(db.sql.selectSummary, [id])).rows[0]
      } catch (error) {
        throw storeError(db, `read the summary of session "${id}"`, error, { session: id })
      }
      if (row === undefined) return undefined
      const { createdAt, parent, length, summary } = row
      // The length and the summary of one row, written by the same statement: a consistent snapshot.
      return { id, createdAt, ...(parent === null ? {} : { parent }), length, ...(summary === null ? {} : summaryFields(summary, length)) }
    },

    async readEvents(id, fromSeq, limit = 1000) {
      ensureOpen()
      assertSessionId(id)
      if (!Number.isSafeInteger(fromSeq) || fromSeq < 0) throw invalidArgument(`readEvents(): "fromSeq" must be a non-negative integer, got ${String(fromSeq)}.`)
      if (!Number.isSafeInteger(limit) || limit < 1) throw invalidArgument(`readEvents(): "limit" must be a positive integer, got ${String(limit)}.`)
      try {
        return await loadEvents(id, fromSeq, 2 ** 31 - 1, limit)
      } catch (error) {
        throw storeError(db, `read the events of session "${id}"`, error, { session: id })
      }
    },

    async list(): Promise<SessionSummary[]> {
      ensureOpen()
      try {
        const { rows } = await db.query<{ id: string; createdAt: number; parent: string | null; header: string; length: number; summary: string | null }>(db.sql.listSessions)
        return rows.map(({ id, createdAt, parent, header, length, summary }) => ({
          id,
          createdAt,
          ...(parent === null ? {} : { parent }),
          length,
          // Written with every batch; a row from before layout 3 has none until its next batch.
          ...(summary === null ? {} : summaryFields(summary, length)),
          ...listedDelegation(header),
        }))
      } catch (error) {
        throw storeError(db, 'list the sessions', error)
      }
    },

    async runningSessions() {
      ensureOpen()
      try {
        return (await db.query<{ id: string }>(db.sql.runningSessions)).rows.map((row) => row.id)
      } catch (error) {
        throw storeError(db, 'list the running sessions', error)
      }
    },

    async sessionStatus(id) {
      ensureOpen()
      assertSessionId(id)
      try {
        return (await db.query<{ status: 'running' | 'idle' | null }>(db.sql.sessionStatus, [id])).rows[0]?.status
      } catch (error) {
        throw storeError(db, `read the status of session "${id}"`, error, { session: id })
      }
    },

    async remove(id) {
      ensureOpen()
      assertSessionId(id)
      // This store's writer (or an open under way) holds the lease: refused as `open` refuses a second writer.
      if (writers.has(id) || opening.has(id)) throw sessionLocked(db.name, id, 'this store')
      return removeSession(db, removal, id)
    },

    leaseHolder: (id) => (ensureOpen(), assertSessionId(id), leases.holder(id)),
    async wakeCheck(id) {
      ensureOpen()
      assertSessionId(id)
      let row: { stored: boolean; heldElsewhere: boolean; pendingMail: boolean } | undefined
      try {
        row = (await db.query<{ stored: boolean; heldElsewhere: boolean; pendingMail: boolean }>(db.leaseSql.wake, [id, owner])).rows[0]
      } catch (error) {
        throw storeError(db, `read the lease and mail of session "${id}"`, error, { session: id })
      }
      return row?.stored ? { heldElsewhere: row.heldElsewhere, pendingMail: row.pendingMail } : undefined
    },
    async expiredLeases(limit = 100) {
      ensureOpen()
      try {
        return (await db.query<{ id: string; owner: string; epoch: string }>(db.leaseSql.expired, [limit])).rows
      } catch (error) {
        throw storeError(db, 'list the expired leases', error)
      }
    },
    renewLeases: () => leases.renew(),
    onLeaseLost(listener) {
      lostListeners.add(listener)
      return () => lostListeners.delete(listener)
    },
    watch(watchOptions) {
      ensureOpen()
      const watcher = new Watcher(db, watchOptions, (w) => watchers.delete(w))
      watchers.add(watcher)
      return watcher
    },

    async close() {
      if (closed) return
      closed = true
      const failures: unknown[] = []
      for (const writer of [...writers.values()]) await writer.close().catch((error: unknown) => failures.push(error))
      for (const watcher of [...watchers]) await watcher.close()
      leases.close()
      await notifier.settled()
      await db.end().catch(() => {})
      if (failures.length === 1) throw failures[0]
      if (failures.length > 1) {
        throw new BosunError(ErrorCodes.STORE, `PostgreSQL store ${db.name}: ${failures.length} sessions could not write their last events before closing.`, {
          cause: new AggregateError(failures),
          details: { database: db.name },
        })
      }
    },
  }
  return store
}
