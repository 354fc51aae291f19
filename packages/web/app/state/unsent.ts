/**
 * Messages a session's Message box sent that the host did not answer, kept in the tab's
 * `sessionStorage` per session so a reload offers them back. A send with no answer may still have
 * been taken (the connection cut after the host admitted it), so each keeps the `clientMessageId`
 * it went with and its delivery: sent again unchanged, with the same delivery, it goes under that
 * id, and a host that has it answers the first admission instead of queueing a second message —
 * also after a reload. The host refuses an id sent with other content or delivery (422
 * `client-message-id-reused`), so anything else sent is a new message with a new id.
 *
 * Kept as the draft is (tab-storage.ts): in the tab, not `localStorage`, and in the page's memory
 * while storage refuses it.
 */
import { tabSlot, type TabStorage } from './tab-storage.js'

/** How a message was sent: Enter or Queue/Send (`followup`), Ctrl+Enter or Steer (`steer`). */
export type Delivery = 'followup' | 'steer'

/** A send the host did not answer: its text, the id it went with, and how it was sent. */
export interface Unsent {
  readonly text: string
  readonly clientMessageId: string
  readonly delivery: Delivery
}

/** What `unsentFor` keeps the entries in: `sessionStorage` in the page (tab-storage.ts). */
export type UnsentStorage = TabStorage

/** How many a session keeps: sends failing while the host is away, not a history. Oldest go first. */
const MAX_KEPT = 20

/** One session's unsent messages, oldest first. */
export interface UnsentList {
  /** The messages kept, oldest first. */
  all(): Unsent[]
  /** Keeps `entry` (after the others; an entry with its id is replaced). */
  add(entry: Unsent): void
  /** Forgets the entries with these ids (sent again, or sent over with new text). */
  remove(...ids: string[]): void
}

/** The unsent messages of `session`, in `storage` (the tab's `sessionStorage` by default). */
export function unsentFor(session: string, storage?: UnsentStorage): UnsentList {
  const slot = tabSlot(`bosun.unsent.${session}`, storage)
  const read = (): Unsent[] => parse(slot.read())
  const write = (entries: Unsent[]): void => slot.write(entries.length === 0 ? null : JSON.stringify(entries.slice(-MAX_KEPT)))
  return {
    all: read,
    add: (entry) => write([...read().filter((kept) => kept.clientMessageId !== entry.clientMessageId), entry]),
    remove: (...ids) => {
      const entries = read()
      const kept = entries.filter((entry) => !ids.includes(entry.clientMessageId))
      if (kept.length !== entries.length) write(kept)
    },
  }
}

/**
 * The entries stored, or none for anything else (a value edited by hand). An entry an earlier version
 * of the page wrote has no delivery: it is taken as a follow-up, what Enter sends (a steer sent again
 * under its id is refused as reused, and the page then forgets it and says so).
 */
function parse(raw: string | null): Unsent[] {
  if (raw === null) return []
  try {
    const value: unknown = JSON.parse(raw)
    if (!Array.isArray(value)) return []
    return value.flatMap((entry): Unsent[] => {
      if (!(typeof entry?.text === 'string' && entry.text !== '' && typeof entry?.clientMessageId === 'string' && entry.clientMessageId !== '')) return []
      return [{ text: entry.text, clientMessageId: entry.clientMessageId, delivery: entry.delivery === 'steer' ? 'steer' : 'followup' }]
    })
  } catch {
    return []
  }
}
