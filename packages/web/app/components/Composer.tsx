import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { messageDraftFor } from '../state/message-draft.js'
import { unsentFor, type Unsent } from '../state/unsent.js'
import { useApp } from './store-context.js'

/** The Message box's id: where the focus goes when what it was on leaves the page (a removed queued message). */
export const MESSAGE_BOX_ID = 'message-box'

/** Said (the buttons' tooltip, a hint under the box) when there is nothing to send: the box is empty or blank. */
export const EMPTY_SEND = 'Nothing to send: type a message first.'
export const EMPTY_STEER = 'Nothing to steer with: type a message first.'
const EMPTY_HINT_ID = 'message-box-empty'

/** Ctrl+Enter (⌘+Enter on a Mac) steers; plain Enter queues; Shift+Enter is a new line. */
export function isSteerKey(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey'>): boolean {
  return event.key === 'Enter' && (event.ctrlKey || event.metaKey)
}

/**
 * Where you type. Enter queues the text as a follow-up (its own turn, after what is queued);
 * Ctrl/⌘+Enter steers the running turn (it joins the next step). Both go through the host's
 * admission; a steer that arrives too late is kept queued and a notice says so.
 */
export function Composer({ session }: { session: string }) {
  const send = useApp((state) => state.send)
  const running = useApp((state) => state.view.status === 'running')
  // A send with no answer may still have been taken (the connection cut after the host admitted it): it is
  // kept with its clientMessageId and delivery in the tab's storage (unsent.ts) from the moment it goes until
  // the host takes it, and its text comes back to the box — also after a reload. Sent again unchanged with the
  // same key or button it reuses the id, so the host answers the first admission instead of making a second
  // message. Changed text is a new message: the host refuses an id sent with other content or delivery. The same
  // text sent the other way (a follow-up steered after) goes under a new id only if the host never admitted the
  // first try (sent-before.ts). The unsent message it replaced is not offered again.
  const unsent = useMemo(() => unsentFor(session), [session])
  // What was typed here and not sent comes back first — after a reload too, or from another session (message-draft.ts,
  // the tab's sessionStorage beside the unsent sends). A draft that began as an unsent message the box offered keeps its id
  // (reworded before the reload too, it replaces that message); one that is an unsent message's text is that message, offered.
  const draft = useMemo(() => messageDraftFor(session), [session])
  const [typedBefore] = useState(() => draft.read())
  const [firstOffer] = useState(() => {
    const kept = unsent.all()
    if (typedBefore.text === '') return kept[0] ?? null
    return kept.find((entry) => entry.clientMessageId === typedBefore.offeredId) ?? kept.find((entry) => entry.text === typedBefore.text.trim()) ?? null
  })
  const [text, setText] = useState(typedBefore.text !== '' ? typedBefore.text : (firstOffer?.text ?? ''))
  /** Why the last Enter, Ctrl+Enter or button click sent nothing (the box was empty), until something is typed. */
  const [emptyHint, setEmptyHint] = useState<string | null>(null)
  const empty = text.trim() === ''
  // Shown only while the box is still empty: text handed to it (an edit that could not apply) ends it too.
  const hint = empty ? emptyHint : null
  /** The unsent message whose text the box was given (the user may have changed it since). */
  const offered = useRef<Unsent | null>(firstOffer)
  // Kept as typed, with the send it began as (the ref is set in the same updates that change the text).
  useEffect(() => draft.keep(text, offered.current?.clientMessageId ?? null), [draft, text])
  /** Ids sent and not yet answered: kept in case of a reload, but not offered back meanwhile. */
  const inFlight = useRef(new Set<string>())
  const box = useRef<HTMLTextAreaElement>(null)

  // What the page hands this box (store.ts, ComposerCall): a queued message's edit whose message started running
  // meanwhile — added below what is typed, never replacing it — and the focus when it fell off the page with the
  // control that had it (Fork's turn, that editor), or for a New session, so the next key goes where the user continues.
  const call = useApp((state) => state.composerCall)
  const takeCall = useApp((state) => state.takeComposerCall)
  useEffect(() => {
    if (call === null || call.session !== session) return
    takeCall(call.id)
    const handed = call.text
    if (handed !== null) setText((current) => (current.trim() === '' ? handed : `${current.trimEnd()}\n\n${handed}`))
    if (call.focus === 'take' || document.activeElement === null || document.activeElement === document.body) box.current?.focus()
  }, [call, session, takeCall])

  /** An empty box gets the oldest unsent message not on its way: each one that came back, in turn. */
  const offerNext = (): void => {
    setText((current) => {
      if (current !== '') return current
      const next = unsent.all().find((entry) => !inFlight.current.has(entry.clientMessageId)) ?? null
      offered.current = next
      return next?.text ?? ''
    })
  }

  const submit = (delivery: 'followup' | 'steer'): void => {
    const value = text.trim()
    // An empty (or blank) box sends nothing, from a key or a button alike, and says so where the user looks.
    // Sent (or not) by a click on Send, Queue or Steer: the next words are typed here, not on the button (where a space would click it).
    box.current?.focus()
    if (value === '') return setEmptyHint(delivery === 'steer' ? EMPTY_STEER : EMPTY_SEND)
    setText('')
    // The offered text sent unchanged, or any unsent message typed again word for word, goes under its id — sent the same way.
    const isSame = (entry: Unsent | null): entry is Unsent => entry !== null && entry.text === value && entry.delivery === delivery
    const same = isSame(offered.current) ? offered.current : (unsent.all().find(isSame) ?? null)
    // The same words sent the other way before, their answer lost: they go under a new id only once the host says it never
    // admitted them (the store asks it first) — else they would run twice. Kept until then, so a retry asks again.
    const isOtherWay = (entry: Unsent | null): entry is Unsent => entry !== null && entry.text === value && entry.delivery !== delivery
    const otherWay = isOtherWay(offered.current) ? offered.current : (unsent.all().find(isOtherWay) ?? null)
    const clientMessageId = same?.clientMessageId ?? globalThis.crypto.randomUUID()
    if (offered.current !== null && offered.current.clientMessageId !== clientMessageId && offered.current !== otherWay) unsent.remove(offered.current.clientMessageId)
    offered.current = null
    unsent.add({ text: value, clientMessageId, delivery })
    inFlight.current.add(clientMessageId)
    // Not taken (the host unreachable, or refusing): the text comes back, unless something new was typed meanwhile.
    // Taken — or its id found taken by a message sent before under it, or the words found admitted the other way
    // (the store said so) — it is forgotten, with the other way's entry.
    void send(value, delivery, clientMessageId, otherWay === null ? undefined : { clientMessageId: otherWay.clientMessageId, delivery: otherWay.delivery }).then((taken) => {
      inFlight.current.delete(clientMessageId)
      if (taken) unsent.remove(clientMessageId, ...(otherWay === null ? [] : [otherWay.clientMessageId]))
      offerNext()
    })
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return
    event.preventDefault()
    submit(isSteerKey(event) ? 'steer' : 'followup')
  }

  return (
    <form
      className="flex items-end gap-2 border-t border-slate-300 bg-white p-3"
      onSubmit={(event) => {
        event.preventDefault()
        submit('followup')
      }}
    >
      <div className="flex flex-1 flex-col gap-1">
        <label className="flex flex-col gap-1 text-xs text-slate-700">
          <span>
            Message — Enter {running ? 'queues a follow-up' : 'sends'}, Ctrl+Enter (⌘+Enter) steers the running turn, Shift+Enter for a new line
          </span>
          <textarea
            id={MESSAGE_BOX_ID}
            ref={box}
            value={text}
            onChange={(event) => {
              setText(event.target.value)
              setEmptyHint(null)
            }}
            onKeyDown={onKeyDown}
            rows={2}
            className="resize-y rounded border border-slate-300 px-2 py-1 text-sm text-slate-900"
            aria-keyshortcuts="Enter Control+Enter Meta+Enter"
            aria-describedby={hint === null ? undefined : EMPTY_HINT_ID}
          />
        </label>
        {/* Outside the label: a hint, not part of the box's name. Always on the page (empty, not hidden: a hidden live region is not followed), so a screen reader announces the words that appear in it. */}
        <p id={EMPTY_HINT_ID} role="status" className="text-xs text-amber-800">
          {hint}
        </p>
      </div>
      <div className="flex flex-col gap-1">
        {/* aria-disabled, not disabled: an empty box's buttons stay focusable and keep their tooltip, and a click says why nothing went. */}
        <button
          type="submit"
          aria-disabled={empty}
          title={empty ? EMPTY_SEND : undefined}
          className="rounded bg-sky-700 px-3 py-1 text-sm font-medium text-white hover:bg-sky-800 aria-disabled:cursor-not-allowed aria-disabled:bg-slate-500 aria-disabled:hover:bg-slate-500"
        >
          {running ? 'Queue' : 'Send'}
        </button>
        <button
          type="button"
          aria-disabled={empty}
          title={empty ? EMPTY_STEER : undefined}
          onClick={() => submit('steer')}
          className="rounded border border-sky-700 px-3 py-1 text-sm text-sky-900 hover:bg-sky-50 aria-disabled:cursor-not-allowed aria-disabled:border-slate-400 aria-disabled:text-slate-500 aria-disabled:hover:bg-transparent"
        >
          Steer
        </button>
      </div>
    </form>
  )
}
