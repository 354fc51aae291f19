import type { Database } from './database.js'

/**
 * Sends the NOTIFYs of appends and mailbox posts after they commit, gathered: every one of this
 * store in the same tick goes out in one small transaction with `synchronous_commit` off. Not inside the append's transaction on purpose: a transaction that
 * NOTIFYs holds PostgreSQL's database-wide notify lock from its commit until its WAL is flushed,
 * so NOTIFY in every append would serialise all commits — no group commit, about 100 commits/s
 * on a disk with 10 ms fsyncs, whatever the number of sessions. A notification lost this way (the
 * process dies right after a commit) is what the watchers' polling is for.
 */
export class Notifier {
  readonly #db: Database
  /** The latest length per session, for the events channel. */
  readonly #lengths = new Map<string, number>()
  readonly #mail: string[] = []
  /** The latest status change per session, for the status channel. */
  readonly #statuses = new Map<string, string>()
  #scheduled = false
  #sending: Promise<void> = Promise.resolve()

  constructor(db: Database) {
    this.#db = db
  }

  /** Session `session` has `length` events committed. */
  appended(session: string, length: number): void {
    if ((this.#lengths.get(session) ?? -1) >= length) return
    this.#lengths.set(session, length)
    this.#schedule()
  }

  /** Session `session` committed a `turn/start` (running) or `turn/end` (idle). */
  statusChanged(session: string, status: string): void {
    this.#statuses.set(session, status)
    this.#schedule()
  }

  /** Message `messageId` was posted to the mailbox of `session`. */
  posted(session: string, messageId: string): void {
    this.#mail.push(`${session} ${messageId}`)
    this.#schedule()
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.#sending = this.#sending.then(() => this.#send())
    })
  }

  /** Resolves once every notification asked for so far was sent (or failed). */
  settled(): Promise<void> {
    return new Promise((resolve) => setImmediate(() => void this.#sending.then(resolve)))
  }

  async #send(): Promise<void> {
    const { events, mailbox, status } = this.#db.channels
    const calls = [
      ...[...this.#lengths].map(([session, length]) => notify(events, `${session} ${length}`)),
      ...this.#mail.map((payload) => notify(mailbox, payload)),
      ...[...this.#statuses].map(([session, now]) => notify(status, `${session} ${now}`)),
    ].join(', ')
    this.#lengths.clear()
    this.#mail.length = 0
    this.#statuses.clear()
    if (calls === '') return
    await this.#db.query(`BEGIN; SET LOCAL synchronous_commit TO OFF; SELECT ${calls}; COMMIT`).catch(() => {})
  }
}

/**
 * One `pg_notify` call with literal arguments (one round trip for a whole batch needs the simple
 * query protocol, which takes no parameters). Channels are built from a checked schema name. A
 * payload holds a message id, which `mailbox.post` takes with quotes and backslashes: it is an
 * escape string (`E'…'`, backslashes and quotes doubled), a literal whatever the server's
 * `standard_conforming_strings` — with that setting off, a plain `'…'` reads `\'` as a quote, so
 * doubling quotes alone let an id end the literal and run its own SQL.
 */
function notify(channel: string, payload: string): string {
  return `pg_notify('${channel}', E'${payload.replaceAll('\\', '\\\\').replaceAll("'", "''")}')`
}
