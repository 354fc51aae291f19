import { useRef, useState, type KeyboardEvent } from 'react'
import { useApp } from './store-context.js'

/** Ctrl+Enter (⌘+Enter on a Mac) steers; plain Enter queues; Shift+Enter is a new line. */
export function isSteerKey(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey'>): boolean {
  return event.key === 'Enter' && (event.ctrlKey || event.metaKey)
}

/**
 * Where you type. Enter queues the text as a follow-up (its own turn, after what is queued);
 * Ctrl/⌘+Enter steers the running turn (it joins the next step). Both go through the host's
 * admission; a steer that arrives too late is kept queued and a notice says so.
 */
export function Composer() {
  const send = useApp((state) => state.send)
  const running = useApp((state) => state.view.status === 'running')
  const [text, setText] = useState('')
  // A send with no answer may still have been taken (the connection cut after the host admitted it): its
  // clientMessageId stays with the text that came back, and sending that same text again reuses it, so the
  // host answers the first admission instead of making a second message. Changed text is a new message.
  const unanswered = useRef<{ text: string; clientMessageId: string } | null>(null)

  const submit = (delivery: 'followup' | 'steer'): void => {
    const value = text.trim()
    if (value === '') return
    setText('')
    const kept = unanswered.current
    const clientMessageId = kept !== null && kept.text === value ? kept.clientMessageId : globalThis.crypto.randomUUID()
    unanswered.current = null
    // Not taken (the host unreachable, or refusing): the text comes back, unless something new was typed meanwhile.
    void send(value, delivery, clientMessageId).then((taken) => {
      if (taken) return
      unanswered.current = { text: value, clientMessageId }
      setText((current) => (current === '' ? value : current))
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
      <label className="flex flex-1 flex-col gap-1 text-xs text-slate-700">
        <span>
          Message — Enter {running ? 'queues a follow-up' : 'sends'}, Ctrl+Enter (⌘+Enter) steers the running turn, Shift+Enter for a new line
        </span>
        <textarea
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          rows={2}
          className="resize-y rounded border border-slate-300 px-2 py-1 text-sm text-slate-900"
          aria-keyshortcuts="Enter Control+Enter Meta+Enter"
        />
      </label>
      <div className="flex flex-col gap-1">
        <button type="submit" className="rounded bg-sky-700 px-3 py-1 text-sm font-medium text-white hover:bg-sky-800">
          {running ? 'Queue' : 'Send'}
        </button>
        <button type="button" onClick={() => submit('steer')} className="rounded border border-sky-700 px-3 py-1 text-sm text-sky-900 hover:bg-sky-50">
          Steer
        </button>
      </div>
    </form>
  )
}
