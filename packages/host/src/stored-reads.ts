import type { SessionEvent, SessionHeader, Store } from '@bosun/core'

/** Events asked of `Store.readEvents` at once by {@link readStoredFrom}. */
const READ_FROM_RANGE = 1000

/*
 * Reads of a session that is not live in this process, straight from the host's store: nothing is
 * resumed, and nothing takes the session for writing where the store can read without it. The
 * session manager (sessions.ts) answers from the live log first and falls back to these.
 */

/** Whether the store holds session `id`, asked as cheaply as the store allows. */
export async function storedExists(store: Store, id: string): Promise<boolean> {
  // `has` or `header` answers without reading the log, which the open after it reads anyway.
  if (store.has) return store.has(id)
  if (store.header) return (await store.header(id)) !== undefined
  if (store.read) return (await store.read(id)) !== undefined
  return (await store.list()).some((s) => s.id === id)
}

/** A stored session's whole log, read without taking it for writing where the store can. */
export async function readStored(store: Store, id: string): Promise<{ header: SessionHeader; events: readonly SessionEvent[] } | undefined> {
  if (store.read) return store.read(id)
  const opened = await store.open(id)
  if (!opened) return undefined
  await opened.writer.close()
  return { header: opened.header, events: opened.events }
}

/**
 * A stored session's events from seq `from` on, by range where the store can (`Store.readEvents`:
 * the cost is what is new, not the history — a cold stream reads on after each change signal),
 * else the whole log's tail. Empty when nothing is stored there; undefined when there is no such session.
 */
export async function readStoredFrom(store: Store, id: string, from: number): Promise<{ events: readonly SessionEvent[] } | undefined> {
  const { readEvents } = store
  if (readEvents === undefined) {
    const read = await readStored(store, id)
    return read === undefined ? undefined : { events: read.events.slice(from) }
  }
  const events: SessionEvent[] = []
  for (;;) {
    const range = await readEvents.call(store, id, from + events.length, READ_FROM_RANGE)
    // Contiguous from where the last range ended, or the log changed under the read: keep what agrees.
    for (const event of range) {
      if (event.seq !== from + events.length) return { events }
      events.push(event)
    }
    if (range.length < READ_FROM_RANGE) return { events }
  }
}

/**
 * A page of a stored session's log — at most `limit` events after seq `after` — and its last seq:
 * only the page, where the store tells the log's length and reads a range of it (`Store.summary`,
 * `Store.readEvents`), else the whole log. The page ends at the length read, as a slice of a whole read would.
 */
export async function storedPage(store: Store, id: string, after: number, limit: number): Promise<{ lastSeq: number; events: readonly SessionEvent[] } | undefined> {
  const { summary, readEvents } = store
  if (summary !== undefined && readEvents !== undefined) {
    const stored = await summary.call(store, id)
    if (stored === undefined) return undefined
    const count = Math.min(limit, stored.length - 1 - after)
    return { lastSeq: stored.length - 1, events: count > 0 ? await readEvents.call(store, id, after + 1, count) : [] }
  }
  const read = await readStored(store, id)
  return read === undefined ? undefined : pageOf(read.events, after, limit)
}

/** A page of a log held in memory (a live session's). */
export function pageOf(events: readonly SessionEvent[], after: number, limit: number): { lastSeq: number; events: readonly SessionEvent[] } {
  return { lastSeq: events.length - 1, events: events.slice(after + 1, after + 1 + limit) }
}
