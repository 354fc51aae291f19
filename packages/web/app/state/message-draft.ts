/**
 * What is typed in a session's Message box and not sent (its draft), kept in the tab's
 * `sessionStorage` per session, where its unsent sends are kept too (unsent.ts, tab-storage.ts):
 * a reload, or another session opened and this one again, finds it in the box. Sending empties the
 * box, and so forgets the draft.
 */
import { tabSlot, type TabStorage } from './tab-storage.js'

/**
 * The longest draft storage keeps, in characters (about 200 KB as the browser counts it): a
 * message, not a file pasted whole. A longer one is kept in the page's memory only — it survives
 * switching sessions, not a reload — so one paste cannot fill the tab's storage, which the unsent
 * sends need.
 */
export const MAX_DRAFT_CHARS = 100_000

/** One session's draft. */
export interface MessageDraft {
  /** The text kept ('' when none). */
  read(): string
  /** Keeps `text` as the draft ('' forgets it). */
  keep(text: string): void
}

/** The draft of `session`, in `storage` (the tab's `sessionStorage` by default). */
export function messageDraftFor(session: string, storage?: TabStorage): MessageDraft {
  const slot = tabSlot(`bosun.draft.${session}`, storage)
  return {
    read: () => slot.read() ?? '',
    keep: (text) => slot.write(text === '' ? null : text, { memoryOnly: text.length > MAX_DRAFT_CHARS }),
  }
}
