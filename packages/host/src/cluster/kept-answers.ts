import type { ClusterMailboxEntry } from './store.js'

/** How a kept answer is saved on its entry: true once saved, false when the lease is gone. */
export type SaveAnswer = () => Promise<boolean>

interface Kept {
  /** The open of the session (its lease) the request ran under. */
  opened: object
  /** The entry's position when it ran: a reopened entry is run afresh. */
  position: string | undefined
  save: SaveAnswer
}

/**
 * Answers the lease owner ran whose save failed (the database connection dropped), by session and
 * entry: the next round saves the one it kept instead of running the request again (a cancel or
 * queue edit would take effect twice). Only for as long as the open it ran under holds the lease:
 * once the session is released (idle retire, a clean close) or lost, the next owner runs it — this
 * host too, if it opens the session again. Entries that stopped being pending (their save
 * committed although its reply was lost, or another owner answered) are forgotten at the next
 * round, so nothing stays kept for ever.
 */
export class KeptAnswers {
  readonly #kept = new Map<string, Kept>()

  /** The answer kept for this entry at this position, under this open; else undefined (and a stale one is forgotten). */
  take(session: string, entry: ClusterMailboxEntry, opened: object): SaveAnswer | undefined {
    const kept = this.#kept.get(key(session, entry.messageId))
    if (kept === undefined) return undefined
    if (kept.opened === opened && kept.position === entry.position) return kept.save
    this.#kept.delete(key(session, entry.messageId))
    return undefined
  }

  keep(session: string, entry: ClusterMailboxEntry, opened: object, save: SaveAnswer): void {
    this.#kept.set(key(session, entry.messageId), { opened, position: entry.position, save })
  }

  forget(session: string, messageId: string): void {
    this.#kept.delete(key(session, messageId))
  }

  /** Forgets every answer of `session`, or those not kept under `opened` (the session was released and opened again). */
  forgetSession(session: string, opened?: object): void {
    for (const [k, kept] of this.#kept) if (sessionOf(k) === session && kept.opened !== opened) this.#kept.delete(k)
  }

  /** The sessions with kept answers. */
  sessions(): Set<string> {
    return new Set([...this.#kept.keys()].map(sessionOf))
  }

  /**
   * Forgets the answers of `session` whose entry is no longer pending at the position it ran at:
   * `read` is the entry as the store has it now (undefined: gone).
   */
  async prune(session: string, read: (messageId: string) => Promise<ClusterMailboxEntry | undefined>): Promise<void> {
    for (const [k, kept] of [...this.#kept]) {
      if (sessionOf(k) !== session) continue
      const messageId = (JSON.parse(k) as string[])[1]!
      const now = await read(messageId)
      if (now === undefined || now.doneAt !== null || now.deliveredSeq !== null || now.position !== kept.position) {
        if (this.#kept.get(k) === kept) this.#kept.delete(k)
      }
    }
  }
}

const key = (session: string, messageId: string): string => JSON.stringify([session, messageId])
const sessionOf = (k: string): string => (JSON.parse(k) as string[])[0]!
