/**
 * What is typed in a session's Message box and not sent (its draft), kept in the tab's
 * `sessionStorage` per session, where its unsent sends are kept too (unsent.ts, tab-storage.ts):
 * a reload, or another session opened and this one again, finds it in the box. Sending empties the
 * box, and so forgets the draft. A draft that began as an unsent send the box offered keeps that
 * send's id, so reworded — before a reload or after — it still replaces that send.
 */
import { tabSlot, type TabStorage } from './tab-storage.js'

/**
 * The longest draft storage keeps, in characters (about 200 KB as the browser counts it): a
 * message, not a file pasted whole. A longer one is kept in the page's memory only — it survives
 * switching sessions, not a reload — so one paste cannot fill the tab's storage, which the unsent
 * sends need.
 */
export const MAX_DRAFT_CHARS = 100_000

/**
 * How many sessions' drafts the tab keeps: past it the draft written longest ago is forgotten, so
 * drafts left in many sessions cannot crowd the unsent sends out of the tab's storage.
 */
export const MAX_DRAFT_SESSIONS = 20

/** A draft: its text, and the unsent send it began as (its `clientMessageId`), if any. */
export interface Draft {
  readonly text: string
  readonly offeredId: string | null
}

/** One session's draft. */
export interface MessageDraft {
  /** The draft kept (text '' when none). */
  read(): Draft
  /** Keeps `text` as the draft, begun as the unsent send `offeredId` (text '' forgets it). */
  keep(text: string, offeredId?: string | null): void
}

const NONE: Draft = { text: '', offeredId: null }

/** The draft of `session`, in `storage` (the tab's `sessionStorage` by default). */
export function messageDraftFor(session: string, storage?: TabStorage): MessageDraft {
  const slot = tabSlot(`bosun.draft.${session}`, storage)
  const sessions = draftSessions(storage)
  return {
    read: () => parse(slot.read()),
    keep: (text, offeredId = null) => {
      if (text === '') {
        slot.write(null)
        sessions.forget(session)
        return
      }
      slot.write(JSON.stringify({ text, offeredId } satisfies Draft), { memoryOnly: text.length > MAX_DRAFT_CHARS })
      for (const dropped of sessions.touch(session)) tabSlot(`bosun.draft.${dropped}`, storage).write(null)
    },
  }
}

/** The sessions with a draft, the one written longest ago first (`bosun.drafts`). */
function draftSessions(storage?: TabStorage): { touch(session: string): string[]; forget(session: string): void } {
  const slot = tabSlot('bosun.drafts', storage)
  const read = (): string[] => {
    try {
      const value: unknown = JSON.parse(slot.read() ?? '[]')
      return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : []
    } catch {
      return []
    }
  }
  const write = (ids: string[]): void => slot.write(ids.length === 0 ? null : JSON.stringify(ids))
  return {
    /** Makes `session` the latest; answers the sessions past the bound, whose drafts go. */
    touch: (session) => {
      const before = read()
      if (before[before.length - 1] === session) return []
      const ids = [...before.filter((id) => id !== session), session]
      write(ids.slice(-MAX_DRAFT_SESSIONS))
      return ids.slice(0, -MAX_DRAFT_SESSIONS)
    },
    forget: (session) => {
      const before = read()
      if (before.includes(session)) write(before.filter((id) => id !== session))
    },
  }
}

/** A stored draft; plain text (what an earlier version of the page stored) is a draft of no send. */
function parse(raw: string | null): Draft {
  if (raw === null) return NONE
  try {
    const value: unknown = JSON.parse(raw)
    if (typeof value === 'object' && value !== null && typeof (value as Draft).text === 'string') {
      const { text, offeredId } = value as Draft
      return { text, offeredId: typeof offeredId === 'string' ? offeredId : null }
    }
  } catch {
    // not JSON: plain text
  }
  return { text: raw, offeredId: null }
}
