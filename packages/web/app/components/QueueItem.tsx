import * as DropdownMenu from '@radix-ui/react-dropdown-menu'
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent, type MouseEvent } from 'react'
import { messageText, type WireMessage } from '../state/wire.js'
import { MESSAGE_BOX_ID } from './Composer.js'
import { useApp } from './store-context.js'

interface DragProps {
  draggable: boolean
  onDragStart(event: DragEvent): void
  onDragOver(event: DragEvent): void
  onDrop(event: DragEvent): void
  onDragEnd(): void
  onKeyDown(event: KeyboardEvent): void
}

/**
 * A control that takes its item out of the dock (Remove, Promote) would leave the focus on nothing
 * — the next Tab starting again at the top of the page: it moves to the next item (or the one
 * before, or the Message box) first.
 */
function focusAfterLeaving(event: MouseEvent<HTMLElement>): void {
  const item = event.currentTarget.closest('li')
  const next = (item?.nextElementSibling ?? item?.previousElementSibling ?? document.getElementById(MESSAGE_BOX_ID)) as HTMLElement | null
  next?.focus()
}

const itemClass = 'cursor-pointer rounded px-2 py-1 text-sm outline-none data-[disabled]:opacity-50 data-[highlighted]:bg-sky-100'

/** One queued follow-up: its text (or an editor), Edit, Promote to steer, Remove and a menu to move it. */
export function QueueItem({ message, position, count, onMove, dragProps }: { message: WireMessage; position: number; count: number; onMove(delta: number): void; dragProps: DragProps }) {
  const edit = useApp((state) => state.edit)
  const remove = useApp((state) => state.remove)
  const promote = useApp((state) => state.promote)
  const noteEdit = useApp((state) => state.noteEdit)
  const [draft, setDraftState] = useState<string | null>(null)
  // The store keeps the open editor's text too: if the message starts running (or leaves the queue
  // otherwise) before it is saved, the editor leaves the page and the store gives the text to the
  // Message box. A save keeps it noted until the host answers — a claim may come first.
  const setDraft = (next: string | null): void => {
    noteEdit(message.id, next)
    setDraftState(next)
  }
  const editButton = useRef<HTMLButtonElement>(null)
  /** The editor closed from the keyboard or Save: the focus goes back to Edit, not to nothing. */
  const refocus = useRef(false)
  useEffect(() => {
    if (draft !== null || !refocus.current) return
    refocus.current = false
    editButton.current?.focus()
  }, [draft])
  const close = (): void => {
    refocus.current = true
    setDraft(null)
  }
  const text = messageText(message)
  const label = `Queued message ${position + 1}: ${text}`

  const save = (): void => {
    const value = draft?.trim() ?? ''
    close()
    if (value === '' || value === text) return
    // Not taken (the host unreachable, or the message claimed meanwhile): the editor opens again with the text.
    noteEdit(message.id, value)
    void edit(message.id, value).then((taken) => {
      if (taken) noteEdit(message.id, null)
      else setDraftState((current) => current ?? value)
    })
  }

  return (
    <li {...dragProps} tabIndex={0} aria-label={label} data-message-id={message.id} className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded border border-slate-300 bg-white px-2 py-1">
      <span aria-hidden="true" className="cursor-grab text-slate-500" title="Drag to reorder">
        ⋮⋮
      </span>
      {draft === null ? (
        <span className="min-w-0 flex-1 basis-40 truncate text-sm whitespace-pre-wrap">{text}</span>
      ) : (
        <span className="flex min-w-0 flex-1 basis-40 items-center gap-1 text-xs">
          <input
            autoFocus
            aria-label="Edit queued message"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={(event) => {
              event.stopPropagation()
              // Without preventDefault the Enter's keypress would click Edit, where the focus has gone back to.
              if (event.key === 'Enter') {
                event.preventDefault()
                save()
              }
              if (event.key === 'Escape') close()
            }}
            className="flex-1 rounded border border-slate-300 px-1 py-0.5 text-sm"
          />
          <button type="button" onClick={save} className="rounded bg-sky-700 px-2 py-0.5 text-white">
            Save
          </button>
        </span>
      )}
      {draft === null ? (
        <>
          <button ref={editButton} type="button" onClick={() => setDraft(text)} className="rounded px-2 py-0.5 text-xs hover:bg-slate-100" aria-label={`Edit: ${text}`}>
            Edit
          </button>
          <button type="button" onClick={(event) => {
              focusAfterLeaving(event)
              void promote(message.id)
            }} className="rounded px-2 py-0.5 text-xs hover:bg-slate-100" aria-label={`Promote to steer: ${text}`}>
            Promote to steer
          </button>
          <button type="button" onClick={(event) => {
              focusAfterLeaving(event)
              void remove(message.id)
            }} className="rounded px-2 py-0.5 text-xs text-red-800 hover:bg-red-50" aria-label={`Remove: ${text}`}>
            Remove
          </button>
          <DropdownMenu.Root>
            <DropdownMenu.Trigger className="rounded px-2 py-0.5 text-xs hover:bg-slate-100" aria-label={`More actions: ${text}`}>
              ⋯
            </DropdownMenu.Trigger>
            <DropdownMenu.Portal>
              <DropdownMenu.Content className="z-50 min-w-40 rounded border border-slate-300 bg-white p-1 shadow" align="end">
                <DropdownMenu.Item className={itemClass} disabled={position === 0} onSelect={() => onMove(-1)}>
                  Move up
                </DropdownMenu.Item>
                <DropdownMenu.Item className={itemClass} disabled={position === count - 1} onSelect={() => onMove(1)}>
                  Move down
                </DropdownMenu.Item>
                <DropdownMenu.Item className={itemClass} disabled={position === 0} onSelect={() => onMove(-position)}>
                  Move to the top
                </DropdownMenu.Item>
              </DropdownMenu.Content>
            </DropdownMenu.Portal>
          </DropdownMenu.Root>
        </>
      ) : null}
    </li>
  )
}
