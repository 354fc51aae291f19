/**
 * Messages a session's Message box sent that the host did not answer, kept in the tab's
 * `sessionStorage` per session so a reload offers them back. A send with no answer may still have
 * been taken (the connection cut after the host admitted it), so each keeps the `clientMessageId`
 * it went with: sent again unchanged it goes under that id, and a host that has it answers the
 * first admission instead of queueing a second message — also after a reload.
 *
 * The tab's storage, not `localStorage`: a text is offered back where it was typed, not in every
 * tab of the host, and it goes with the tab.
 */

/** A send the host did not answer: its text and the id it went with. */
export interface Unsent {
  readonly text: string
  readonly clientMessageId: string
}

/** What `unsentFor` keeps the entries in: `sessionStorage` in the page (the part of `Storage` it uses). */
export interface UnsentStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

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

const keyOf = (session: string): string => `bosun.unsent.${session}`

/** Storage that cannot be read or written (disabled, full, a sandboxed frame) leaves a page-long memory. */
const memory = new Map<string, string>()

/** The unsent messages of `session`, in `storage` (the tab's `sessionStorage` by default). */
export function unsentFor(session: string, storage: UnsentStorage | undefined = defaultStorage()): UnsentList {
  const key = keyOf(session)
  const read = (): Unsent[] => {
    // The page's memory first: it holds a list only while storage refuses it (full), and then the
    // value storage still has is an older one, without the sends since.
    let raw: string | null = memory.get(key) ?? null
    if (raw === null) {
      try {
        raw = storage?.getItem(key) ?? null
      } catch {
        raw = null
      }
    }
    return parse(raw)
  }
  const write = (entries: Unsent[]): void => {
    const value = JSON.stringify(entries.slice(-MAX_KEPT))
    memory.delete(key)
    try {
      if (storage === undefined) throw new Error('no storage')
      if (entries.length === 0) storage.removeItem(key)
      else storage.setItem(key, value)
    } catch {
      if (entries.length > 0) memory.set(key, value)
    }
  }
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

function defaultStorage(): UnsentStorage | undefined {
  try {
    return (globalThis as { sessionStorage?: UnsentStorage }).sessionStorage
  } catch {
    return undefined // reading the property itself throws where storage is denied
  }
}

/** The entries stored, or none for anything else (a value another version of the page wrote, edited by hand). */
function parse(raw: string | null): Unsent[] {
  if (raw === null) return []
  try {
    const value: unknown = JSON.parse(raw)
    if (!Array.isArray(value)) return []
    return value.filter((entry): entry is Unsent => typeof entry?.text === 'string' && entry.text !== '' && typeof entry?.clientMessageId === 'string' && entry.clientMessageId !== '')
  } catch {
    return []
  }
}
