import { BosunError, ErrorCodes, invalidArgument, freezeParsedJson } from '@bosun/core'
import type { JsonValue } from '@bosun/core'
import type { QueryResultRow } from 'pg'
import type { Database } from './database.js'
import { noSessionForMail, sqlState, storeError } from './errors.js'
import type { Lease } from './leases.js'
import { mailboxStatements } from './mailbox-sql.js'

/** A message in a session's mailbox. */
export interface MailboxEntry {
  /** The client's message id: the key that makes posting idempotent. */
  messageId: string
  session: string
  /** What it asks for, e.g. `message`, `cancel`, `edit` (the host decides). */
  kind: string
  body: JsonValue
  /** The owner name of the store that admitted it. */
  admittedBy: string | null
  /** Epoch ms, database clock. */
  createdAt: number
  /** The seq of the `agent/inbox/spliced` event that put it into the inbox, once it did. */
  deliveredSeq: number | null
  /** Epoch ms at which the owner marked it done (see {@link Mailbox.complete}), or null. */
  doneAt: number | null
  outcome: JsonValue | null
  /** Admission order (PostgreSQL bigint as text). */
  position: string
}

type Row = Omit<MailboxEntry, 'body' | 'outcome'> & { body: string; outcome: string | null }

/**
 * Messages any host admits for the host that holds a session's lease (SPEC §13): `post` is
 * idempotent by the client's message id; a new message is notified on the mailbox channel after
 * its commit (notifier.ts); the owner reads
 * `pending`, claims each (`claim`) and splices it into the inbox with the same message id. A batch
 * whose `agent/inbox/spliced` event inserts a message with a mailbox id marks that entry
 * delivered in the same transaction (`deliveredSeq`) if this owner claimed it under the batch's
 * lease epoch, so a crash can neither lose nor repeat a delivery.
 * Messages that are not spliced (a cancel, a queue edit) are closed with `complete` by the owner.
 */
export class Mailbox {
  readonly #db: Database
  readonly #owner: string
  readonly #ensureOpen: () => void
  readonly #leaseOf: (session: string) => Lease | undefined
  readonly #sql: ReturnType<typeof mailboxStatements>

  readonly #posted: (session: string, messageId: string) => void
  /** A lease found taken over: reported lost at once, as a fenced batch is (leases.ts, `lost`). */
  readonly #lost: (lease: Lease, error: BosunError) => void

  constructor(db: Database, owner: string, hooks: { ensureOpen: () => void; leaseOf: (session: string) => Lease | undefined; posted: (session: string, messageId: string) => void; lost?: (lease: Lease, error: BosunError) => void }) {
    this.#db = db
    this.#owner = owner
    this.#ensureOpen = hooks.ensureOpen
    this.#leaseOf = hooks.leaseOf
    this.#posted = hooks.posted
    this.#lost = hooks.lost ?? (() => {})
    this.#sql = mailboxStatements(db.schema)
  }

  /**
   * Admits a message for `session`; `created` is false when this message id was posted before
   * (the stored entry, with the first post's body, is returned either way). SESSION_NOT_FOUND when
   * no such session is stored — never made, or removed, also while this post waited for the
   * removal: the mailbox's foreign key (schema.ts, layout 5) decides, so no mail outlives its session.
   */
  async post(session: string, message: { messageId: string; kind?: string; body: JsonValue }): Promise<{ created: boolean; entry: MailboxEntry }> {
    this.#ensureOpen()
    const { messageId, kind = 'message', body } = message ?? {}
    checkId(session, 'session')
    checkId(messageId, 'messageId')
    if (typeof kind !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(kind)) throw invalidArgument('mailbox.post(): "kind" must be a short lower-case word such as "message" or "cancel".')
    const text = JSON.stringify(body)
    if (typeof text !== 'string') throw new BosunError(ErrorCodes.NOT_JSON, `mailbox.post(): the body of message "${messageId}" is not JSON.`)
    try {
      const created = (await this.#db.query(this.#sql.post, [session, messageId, kind, text, this.#owner])).rowCount === 1
      if (created) this.#posted(session, messageId)
      const entry = await this.get(session, messageId)
      return { created, entry: entry! }
    } catch (error) {
      if (sqlState(error) === '23503') throw noSessionForMail(this.#db.name, session, messageId, error)
      throw storeError(this.#db, `post message "${messageId}" to the mailbox of session "${session}"`, error, { session })
    }
  }

  /**
   * Posts again a message its owner closed without delivering it (`doneAt` set, `deliveredSeq`
   * null: an error answer, so it was not admitted): pending once more with `body`, after the mail
   * posted before now, and NOTIFYed like a new post. Only while the entry is still the one read
   * at `position` (the entry's `position` from `post` or `get`): false when it was not done, was
   * delivered, or another post reopened it first (read it again: that post's run answers both).
   */
  async reopen(session: string, messageId: string, message: { body: JsonValue; position: string }): Promise<boolean> {
    this.#ensureOpen()
    checkId(session, 'session')
    checkId(messageId, 'messageId')
    const { body, position } = message ?? {}
    if (typeof position !== 'string' || !/^[0-9]{1,19}$/.test(position)) throw invalidArgument('mailbox.reopen(): "position" must be the entry\'s position as post() or get() returned it.')
    const text = JSON.stringify(body)
    if (typeof text !== 'string') throw new BosunError(ErrorCodes.NOT_JSON, `mailbox.reopen(): the body of message "${messageId}" is not JSON.`)
    const reopened = (await this.#query(this.#sql.reopen, [session, messageId, text, this.#owner, position], `post message "${messageId}" again`)).rowCount === 1
    if (reopened) this.#posted(session, messageId)
    return reopened
  }

  /** The entry of a message id, or `undefined` (what a host answers a client asking about a `pending` receipt). */
  async get(session: string, messageId: string): Promise<MailboxEntry | undefined> {
    this.#ensureOpen()
    checkId(session, 'session')
    checkId(messageId, 'messageId')
    const row = (await this.#query(this.#sql.get, [session, messageId], `read message "${messageId}"`)).rows[0]
    return row === undefined ? undefined : decode(row)
  }

  /** Messages of `session` neither delivered nor done, in admission order (at most `limit`, default 100). */
  async pending(session: string, limit = 100): Promise<MailboxEntry[]> {
    this.#ensureOpen()
    checkId(session, 'session')
    return (await this.#query(this.#sql.pending, [session, limit], `read the mailbox of session "${session}"`)).rows.map(decode)
  }

  /** Sessions with pending mail (at most `limit`, default 100): a cold one is opened by the first host that takes its lease. */
  async sessions(limit = 100): Promise<string[]> {
    this.#ensureOpen()
    return (await this.#query<{ session: string }>(this.#sql.sessions, [limit], 'list the sessions with pending mail')).rows.map((row) => row.session)
  }

  /**
   * Claims a pending entry for its run here, fenced like an append (only while this store holds
   * the session's lease): a batch whose splice inserts the entry's message id marks it delivered
   * only if it was claimed under the epoch the batch is written with. So another entry of an id
   * this owner admitted by itself — posted before that admission committed, and never run — stays
   * pending, and its run answers its sender. True once claimed; false when the entry is not the
   * pending one read at `position` (delivered, done or reopened since); STALE_WRITER without the lease.
   */
  async claim(session: string, messageId: string, position: string): Promise<boolean> {
    this.#ensureOpen()
    checkId(session, 'session')
    checkId(messageId, 'messageId')
    if (typeof position !== 'string' || !/^[0-9]{1,19}$/.test(position)) throw invalidArgument('mailbox.claim(): "position" must be the entry\'s position as pending() or get() returned it.')
    const lease = this.#leaseOf(session)
    if (lease === undefined) throw this.#noLease(session, 'claim')
    const claimed = await this.#query(this.#sql.claim, [session, messageId, position, lease.owner, lease.epoch], `claim message "${messageId}"`)
    if (claimed.rowCount === 1) return true
    // Not the pending entry read at `position` any more, or the lease is gone: the lease row says which.
    if (await this.#holds(lease)) return false
    throw this.#takenOver(lease, `message "${messageId}" was not claimed`)
  }

  /**
   * Marks a message done with `outcome`, fenced like an append: only while this store holds the
   * session's lease at the same epoch — and, given the `position` it was read at, only while it is
   * that entry (a post that reopened it since is left pending, for its own run). False when it was
   * done already (or reopened since); STALE_WRITER without the lease.
   */
  async complete(session: string, messageId: string, outcome: JsonValue = null, position?: string): Promise<boolean> {
    this.#ensureOpen()
    checkId(session, 'session')
    checkId(messageId, 'messageId')
    if (position !== undefined && (typeof position !== 'string' || !/^[0-9]{1,19}$/.test(position))) throw invalidArgument('mailbox.complete(): "position" must be the entry\'s position as pending() or get() returned it.')
    const lease = this.#leaseOf(session)
    if (lease === undefined) throw this.#noLease(session, 'complete')
    const done = await this.#query(this.#sql.complete, [session, messageId, JSON.stringify(outcome), lease.owner, lease.epoch, position ?? null], `complete message "${messageId}"`)
    if (done.rowCount === 1) return true
    if (await this.get(session, messageId) === undefined) throw invalidArgument(`mailbox.complete(): session "${session}" has no message "${messageId}" in its mailbox.`)
    // Done already or reopened since, or the lease is gone: the lease row says which.
    if (await this.#holds(lease)) return false
    throw this.#takenOver(lease, `message "${messageId}" was not marked done`)
  }

  /** Whether this store still holds `lease` (its owner at its epoch), read from the lease row. */
  async #holds(lease: Lease): Promise<boolean> {
    return (await this.#query(this.#sql.held, [lease.session, lease.owner, lease.epoch], `read the lease of session "${lease.session}"`)).rowCount === 1
  }

  /** STALE_WRITER for a lease found taken over, reported lost first (the host drops the session now, not at the next renewal). */
  #takenOver(lease: Lease, what: string): BosunError {
    const error = new BosunError(ErrorCodes.STALE_WRITER, `PostgreSQL store ${this.#db.name}: session "${lease.session}": ${what}: this store's lease was taken over. Close the session's agent.`, {
      details: { database: this.#db.name, session: lease.session, epoch: lease.epoch },
    })
    this.#lost(lease, error)
    return error
  }

  #noLease(session: string, method: string): BosunError {
    return new BosunError(ErrorCodes.STALE_WRITER, `PostgreSQL store ${this.#db.name}: mailbox.${method}() needs the lease of session "${session}": open the session in this store first.`, {
      details: { database: this.#db.name, session },
    })
  }

  async #query<Result extends QueryResultRow = Row>(text: string, values: unknown[], doing: string) {
    try {
      return await this.#db.query<Result>(text, values)
    } catch (error) {
      throw storeError(this.#db, doing, error)
    }
  }
}

function decode(row: Row): MailboxEntry {
  return Object.freeze({
    ...row,
    body: freezeParsedJson(JSON.parse(row.body)) as JsonValue,
    outcome: row.outcome === null ? null : (freezeParsedJson(JSON.parse(row.outcome)) as JsonValue),
  })
}

function checkId(value: unknown, name: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > 256 || /[\u0000-\u001f\u007f]/.test(value)) {
    throw invalidArgument(`mailbox: "${name}" must be a string of 1 to 256 characters without control characters.`)
  }
}
