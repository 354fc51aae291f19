/**
 * One key of the tab's `sessionStorage`, the place the Message box keeps what must survive a reload
 * (its unsent sends, unsent.ts; its draft, message-draft.ts). Storage that cannot take a value —
 * disabled, full, a sandboxed frame, or a value its caller will not put there — leaves a page-long
 * memory in its place: kept while the page is open, not across a reload.
 *
 * The tab's storage, not `localStorage`: a text comes back where it was typed, not in every tab of
 * the host, and it goes with the tab.
 */

/** The part of `Storage` used: `sessionStorage` in the page, a Map in tests. */
export interface TabStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/** One key's value, read and written through the page's memory when storage refuses it. */
export interface TabSlot {
  read(): string | null
  /** Keeps `value` (null: forgets it); `memoryOnly` keeps it in the page's memory only, and storage forgets the key. */
  write(value: string | null, options?: { memoryOnly?: boolean }): void
}

/** Values storage refused, by key: a page-long memory. */
const memory = new Map<string, string>()

/** The slot `key` in `storage` (the tab's `sessionStorage` by default). */
export function tabSlot(key: string, storage: TabStorage | undefined = defaultTabStorage()): TabSlot {
  return {
    read: () => {
      // The page's memory first: it holds a value only while storage refuses it (full), and then the
      // value storage still has is an older one.
      const held = memory.get(key)
      if (held !== undefined) return held
      try {
        return storage?.getItem(key) ?? null
      } catch {
        return null
      }
    },
    write: (value, options) => {
      memory.delete(key)
      try {
        if (storage === undefined) throw new Error('no storage')
        if (value === null || options?.memoryOnly === true) storage.removeItem(key)
        else storage.setItem(key, value)
      } catch {
        // Refused: the page's memory holds the value instead.
        if (value !== null && options?.memoryOnly !== true) memory.set(key, value)
      }
      if (value !== null && options?.memoryOnly === true) memory.set(key, value)
    },
  }
}

function defaultTabStorage(): TabStorage | undefined {
  try {
    return (globalThis as { sessionStorage?: TabStorage }).sessionStorage
  } catch {
    return undefined // reading the property itself throws where storage is denied
  }
}
