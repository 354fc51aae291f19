import { useEffect, useRef, type FocusEvent } from 'react'
import { MESSAGE_BOX_ID } from './Composer.js'
import { MAIN_ID, NEW_SESSION_ID } from './focus-targets.js'
import { useApp } from './store-context.js'

/**
 * Short messages about the last actions ("Kept queued", a refused edit), newest last. Each has a
 * Dismiss button; information leaves on its own after a while, errors stay until dismissed, and a
 * newer notice on the same action replaces the one before (state/notices.ts). None leaves while the
 * pointer is on it or the focus in it, so a notice being read or reached from the keyboard stays.
 */
export function Notices() {
  const notices = useApp((state) => state.notices)
  const dismiss = useApp((state) => state.dismiss)
  const holdNotices = useApp((state) => state.holdNotices)
  /** The notice under the pointer, and whether the focus is in one: while either, none leaves on its own. */
  const hovered = useRef<number | null>(null)
  const focused = useRef(false)
  const list = useRef<HTMLDivElement>(null)
  const hold = (): void => holdNotices(focused.current || (hovered.current !== null && notices.some((notice) => notice.id === hovered.current)))
  // A notice replaced or dismissed goes without a mouseleave or a blur: what holds them is read again from the page.
  useEffect(() => {
    focused.current = list.current?.contains(document.activeElement) ?? false
    hold()
  })

  /**
   * Dismissed from its button: the focus goes to the next notice's Dismiss (or the one before), else the Message box —
   * or, with no session open (none there), New session, else the conversation's region: never off the page.
   */
  const dismissFrom = (id: number, button: HTMLButtonElement): void => {
    const buttons = [...(list.current?.querySelectorAll<HTMLButtonElement>('button[data-dismiss]') ?? [])]
    const at = buttons.indexOf(button)
    const next = buttons[at + 1] ?? buttons[at - 1] ?? [MESSAGE_BOX_ID, NEW_SESSION_ID, MAIN_ID].map((id) => document.getElementById(id)).find((element) => element !== null)
    const hadFocus = document.activeElement === button
    dismiss(id)
    if (hadFocus) next?.focus()
  }
  const onBlur = (event: FocusEvent<HTMLDivElement>): void => {
    focused.current = event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget)
    hold()
  }

  return (
    <div
      ref={list}
      aria-live="polite"
      className="pointer-events-none fixed right-4 bottom-28 flex w-96 max-w-[calc(100vw-2rem)] flex-col gap-2"
      onFocus={() => {
        focused.current = true
        hold()
      }}
      onBlur={onBlur}
    >
      {notices.map((notice) => (
        <div
          key={notice.id}
          role={notice.kind === 'error' ? 'alert' : 'status'}
          onMouseEnter={() => {
            hovered.current = notice.id
            hold()
          }}
          onMouseLeave={() => {
            if (hovered.current === notice.id) hovered.current = null
            hold()
          }}
          className={`pointer-events-auto flex items-start gap-2 rounded border p-3 text-sm shadow ${notice.kind === 'error' ? 'border-red-300 bg-red-50 text-red-900' : 'border-sky-300 bg-sky-50 text-sky-950'}`}
        >
          <span id={`notice-${notice.id}`} className="flex-1">
            {notice.text}
          </span>
          <button
            type="button"
            data-dismiss=""
            className="rounded px-1 text-slate-700 hover:bg-white"
            onClick={(event) => dismissFrom(notice.id, event.currentTarget)}
            aria-label="Dismiss"
            aria-describedby={`notice-${notice.id}`}
            title="Dismiss"
          >
            ×
          </button>
        </div>
      ))}
    </div>
  )
}
