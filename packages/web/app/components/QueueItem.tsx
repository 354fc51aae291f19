import * as DropdownMenu from '@radix-ui/react-dropdown-menu'
import { useState, type DragEvent, type KeyboardEvent } from 'react'
import { messageText, type WireMessage } from '../state/wire.js'
import { useApp } from './store-context.js'

interface DragProps {
  draggable: boolean
  onDragStart(event: DragEvent): void
  onDragOver(event: DragEvent): void
  onDrop(event: DragEvent): void
  onDragEnd(): void
  onKeyDown(event: KeyboardEvent): void
}

const itemClass = 'cursor-pointer rounded px-2 py-1 text-sm outline-none data-[disabled]:opacity-50 data-[highlighted]:bg-sky-100'

/** One queued follow-up: its text (or an editor), Edit, Promote to steer, Remove and a menu to move it. */
export function QueueItem({ message, position, count, onMove, dragProps }: { message: WireMessage; position: number; count: number; onMove(delta: number): void; dragProps: DragProps }) {
  const edit = useApp((state) => state.edit)
  const remove = useApp((state) => state.remove)
  const promote = useApp((state) => state.promote)
  const [draft, setDraft] = useState<string | null>(null)
  const text = messageText(message)
  const label = `Queued message ${position + 1}: ${text}`

  const save = (): void => {
    const value = draft?.trim() ?? ''
    setDraft(null)
    if (value === '' || value === text) return
    // Not taken (the host unreachable, or the message claimed meanwhile): the editor opens again with the text.
    void edit(message.id, value).then((taken) => {
      if (!taken) setDraft((current) => current ?? value)
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
              if (event.key === 'Enter') save()
              if (event.key === 'Escape') setDraft(null)
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
          <button type="button" onClick={() => setDraft(text)} className="rounded px-2 py-0.5 text-xs hover:bg-slate-100" aria-label={`Edit: ${text}`}>
            Edit
          </button>
          <button type="button" onClick={() => void promote(message.id)} className="rounded px-2 py-0.5 text-xs hover:bg-slate-100" aria-label={`Promote to steer: ${text}`}>
            Promote to steer
          </button>
          <button type="button" onClick={() => void remove(message.id)} className="rounded px-2 py-0.5 text-xs text-red-800 hover:bg-red-50" aria-label={`Remove: ${text}`}>
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
