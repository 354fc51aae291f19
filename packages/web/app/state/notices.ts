/**
 * The page's notices: short messages about the last actions (a refused send, "Kept queued", an edit
 * that could not apply). Each has a topic — the action it is about — and a new notice on a topic
 * replaces the one before rather than stacking beside it (two failed sends say "Queueing failed"
 * once, with the latest reason). Information leaves on its own after {@link INFO_NOTICE_MS}, not
 * while the pointer is on a notice or the focus in one (the Notices component holds them); an
 * error stays until dismissed. Any notice has a Dismiss button.
 */

export interface Notice {
  id: number
  kind: 'info' | 'error'
  /** What it is about (`Queueing`, `kept-queued`, `edit-lost:<messageId>`…): a newer notice on it replaces this one. */
  topic: string
  text: string
}

/** How long an information notice stays, unless held: long enough to read the longest one (about 40 words). */
export const INFO_NOTICE_MS = 12_000

/** At most this many at once; a newer one pushes out the oldest information first, then the oldest error. */
export const MAX_NOTICES = 4

/** `notices` with `notice` added last: one on its topic replaced, the list bounded. */
export function withNotice(notices: readonly Notice[], notice: Notice): Notice[] {
  const next = [...notices.filter((shown) => shown.topic !== notice.topic), notice]
  while (next.length > MAX_NOTICES) {
    const info = next.findIndex((shown) => shown.kind === 'info')
    next.splice(info >= 0 && info < next.length - 1 ? info : 0, 1)
  }
  return next
}

/** Dismisses information notices `ms` after they are shown; held, none leaves (each gets its whole time again once released). */
export interface NoticeTimers {
  shown(notice: Notice): void
  gone(id: number): void
  hold(held: boolean, notices: readonly Notice[]): void
  /** Stops every timer (the page leaving, a test's end). */
  clear(): void
}

export function noticeTimers(ms: number, dismiss: (id: number) => void): NoticeTimers {
  const timers = new Map<number, ReturnType<typeof setTimeout>>()
  let held = false
  const shown = (notice: Notice): void => {
    if (notice.kind !== 'info' || held || timers.has(notice.id)) return
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
    clear,
  }
}
