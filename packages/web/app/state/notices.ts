/**
 * The page's notices: short messages about the last actions (a refused send, "Kept queued", an edit
 * that could not apply). Each has a topic — the action it is about, in its session — and a new notice
 * on a topic replaces the one before rather than stacking beside it (two failed sends in one session
 * say "Queueing failed" once, with the latest reason; a failure in another session is its own).
 * Information leaves on its own after {@link INFO_NOTICE_MS}, not while the pointer is on a notice or
 * the focus in one (the Notices component holds them); an error stays until dismissed — nothing
 * pushes it out. Any notice has a Dismiss button.
 */

export interface Notice {
  id: number
  kind: 'info' | 'error'
  /** What it is about (`Queueing@<session>`, `kept-queued@<session>`, `edit-lost:<messageId>@<session>`…): a newer notice on it replaces this one. */
  topic: string
  text: string
}

/** The topic of `action` in `session`: a failure in one session does not replace another session's. */
export const topicOf = (action: string, session: string): string => `${action}@${session}`

/** How long an information notice stays, unless held: long enough to read the longest one (about 40 words). */
export const INFO_NOTICE_MS = 12_000

/**
 * At most this many while any is information: past it the oldest information leaves (the new one
 * itself, when all the others are errors). Errors are never pushed out — each stays until dismissed,
 * and one per action and session bounds them.
 */
export const MAX_NOTICES = 4

/** `notices` with `notice` added last: one on its topic replaced, information bounded. */
export function withNotice(notices: readonly Notice[], notice: Notice): Notice[] {
  const next = [...notices.filter((shown) => shown.topic !== notice.topic), notice]
  while (next.length > MAX_NOTICES) {
    const info = next.findIndex((shown) => shown.kind === 'info')
    if (info < 0) break
    next.splice(info, 1)
  }
  return next
}

/** Dismisses information notices `ms` after they are shown; held, none leaves (each gets its whole time again once released). */
export interface NoticeTimers {
  shown(notice: Notice): void
  gone(id: number): void
  hold(held: boolean, notices: readonly Notice[]): void
  /** Stops every timer for good (the page leaving, a test's end): a send answered later starts none. */
  stop(): void
}

export function noticeTimers(ms: number, dismiss: (id: number) => void): NoticeTimers {
  const timers = new Map<number, ReturnType<typeof setTimeout>>()
  let held = false
  let stopped = false
  const shown = (notice: Notice): void => {
    if (notice.kind !== 'info' || held || stopped || timers.has(notice.id)) return
    timers.set(notice.id, setTimeout(() => {
      timers.delete(notice.id)
      dismiss(notice.id)
    }, ms))
  }
  const clear = (): void => {
    for (const timer of timers.values()) clearTimeout(timer)
    timers.clear()
  }
  return {
    shown,
    gone: (id) => {
      clearTimeout(timers.get(id))
      timers.delete(id)
    },
    hold: (value, notices) => {
      if (value === held) return
      held = value
      if (held) clear()
      else for (const notice of notices) shown(notice)
    },
    stop: () => {
      stopped = true
      clear()
    },
  }
}

/** The store's side of the notices: its list (read and written through `list`) and their timers. */
export interface NoticeBoard {
  /** Shows a notice on `topic`, replacing the one before on it. */
  notify(kind: Notice['kind'], topic: string, text: string): void
  dismiss(id: number): void
  hold(held: boolean): void
  stop(): void
}

export function noticeBoard(ms: number, list: { read(): readonly Notice[]; write(notices: Notice[]): void }): NoticeBoard {
  let lastId = 0
  const dismiss = (id: number): void => {
    timers.gone(id)
    list.write(list.read().filter((notice) => notice.id !== id))
  }
  const timers = noticeTimers(ms, dismiss)
  return {
    notify: (kind, topic, text) => {
      lastId += 1
      const notice = { id: lastId, kind, topic, text }
      const before = list.read()
      const notices = withNotice(before, notice)
      for (const gone of before) if (!notices.includes(gone)) timers.gone(gone.id)
      list.write(notices)
      if (notices.includes(notice)) timers.shown(notice)
    },
    dismiss,
    hold: (held) => timers.hold(held, list.read()),
    stop: () => timers.stop(),
  }
}
