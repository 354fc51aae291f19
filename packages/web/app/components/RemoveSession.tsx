import * as Dialog from '@radix-ui/react-dialog'
import { useMemo, useRef, useState } from 'react'
import { childrenOf } from '../state/session-list.js'
import { MAIN_ID } from './focus-targets.js'
import { useApp } from './store-context.js'

/**
 * Remove… in the session's header: a confirm that names the session and the subagent children that
 * go with it (forks stay), then `DELETE /v1/sessions/:id`. Refused (a child whose parent is stored,
 * a session another host holds), the dialog closes and a notice says why.
 */
export function RemoveSession({ id }: { id: string }) {
  const removeSession = useApp((state) => state.removeSession)
  const sessions = useApp((state) => state.sessions)
  const children = useMemo(() => childrenOf(sessions, id), [sessions, id])
  const [open, setOpen] = useState(false)
  const [removing, setRemoving] = useState(false)
  const trigger = useRef<HTMLButtonElement>(null)
  const confirm = async (): Promise<void> => {
    setRemoving(true)
    try {
      await removeSession(id)
    } finally {
      setRemoving(false)
      setOpen(false)
    }
  }
  return (
    <Dialog.Root open={open} onOpenChange={(next) => (removing ? undefined : setOpen(next))}>
      <Dialog.Trigger ref={trigger} className="rounded border border-red-400 px-3 py-1 text-sm text-red-800 hover:bg-red-50">Remove…</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-slate-900/40" />
        <Dialog.Content
          role="alertdialog"
          onCloseAutoFocus={(event) => {
            // Removed, the session's header (and this trigger) left the page: the focus goes to where the session was, not to nothing.
            if (trigger.current?.isConnected === true) return
            event.preventDefault()
            document.getElementById(MAIN_ID)?.focus()
          }}
          className="fixed top-1/4 left-1/2 flex w-[min(32rem,calc(100%-2rem))] -translate-x-1/2 flex-col gap-3 rounded-lg bg-white p-4 shadow-xl">
          <Dialog.Title className="text-base font-semibold break-all">Remove session {id}?</Dialog.Title>
          <Dialog.Description asChild>
            <div className="flex flex-col gap-2 text-sm text-slate-700">
              <p>Its conversation and queue are deleted from the host's store for good; a turn running in it is stopped first.</p>
              {children.length === 0 ? null : (
                <p>
                  {children.length === 1 ? 'Its subagent child goes too: ' : `Its ${children.length} subagent children go too: `}
                  <span className="font-mono break-all">{children.join(', ')}</span>.
                </p>
              )}
              <p>Forks of it stay.</p>
            </div>
          </Dialog.Description>
          <div className="flex justify-end gap-2">
            <Dialog.Close disabled={removing} className="rounded border border-slate-400 px-3 py-1 text-sm hover:bg-slate-100 disabled:opacity-50">
              Cancel
            </Dialog.Close>
            <button type="button" disabled={removing} onClick={() => void confirm()} className="rounded bg-red-700 px-3 py-1 text-sm font-medium text-white hover:bg-red-800 disabled:opacity-50">
              {removing ? 'Removing…' : children.length === 0 ? 'Remove' : `Remove ${children.length + 1} sessions`}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
