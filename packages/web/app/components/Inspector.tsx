import * as Dialog from '@radix-ui/react-dialog'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useMemo, useRef, useState } from 'react'
import type { SessionView, TurnView } from '../state/view.js'
import type { WireEvent } from '../state/wire.js'
import { useApp } from './store-context.js'

/** The events of turn `turn` (from its turn/start up to the next turn's), or all when `turn` is -1. */
function eventsOf(view: SessionView, turn: number): WireEvent[] {
  if (turn < 0) return view.events.toArray()
  const turns = view.items.filter((item): item is TurnView => item.kind === 'turn')
  const at = turns.findIndex((item) => item.turn === turn)
  if (at < 0) return []
  const from = turns[at]!.startSeq
  const to = turns[at + 1]?.startSeq ?? Number.POSITIVE_INFINITY
  return view.events.filter((event) => event.seq >= from && event.seq < to)
}

/** The raw log events by seq, as the host sent them (virtualised: a long session has many). */
export function Inspector() {
  const inspecting = useApp((state) => state.inspecting)
  const view = useApp((state) => state.view)
  const inspect = useApp((state) => state.inspect)
  const [filter, setFilter] = useState('')
  const events = useMemo(() => {
    if (inspecting === null) return []
    const needle = filter.trim().toLowerCase()
    const all = eventsOf(view, inspecting)
    return needle === '' ? all : all.filter((event) => event.type.toLowerCase().includes(needle) || String(event.seq) === needle)
  }, [view, inspecting, filter])
  const scroller = useRef<HTMLDivElement>(null)
  // The dialog has no Radix Trigger (Inspector and each turn's Events open it through the store), so
  // on close Radix had nowhere to return the focus and left it on nothing: it goes back to the
  // control that opened the dialog.
  const opener = useRef<HTMLElement | null>(null)
  const virtualizer = useVirtualizer({ count: events.length, getScrollElement: () => scroller.current, estimateSize: () => 28, overscan: 20, initialRect: { width: 800, height: 600 } })

  return (
    <Dialog.Root open={inspecting !== null} onOpenChange={(open) => (open ? undefined : inspect(null))}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-slate-900/40" />
        <Dialog.Content
          onOpenAutoFocus={() => {
            opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
          }}
          onCloseAutoFocus={(event) => {
            if (opener.current?.isConnected !== true) return
            event.preventDefault()
            opener.current.focus()
          }}
          className="fixed inset-y-4 right-4 flex w-[min(56rem,calc(100%-2rem))] flex-col rounded-lg bg-white shadow-xl">
          <div className="flex items-center gap-3 border-b border-slate-200 p-3">
            <Dialog.Title className="text-base font-semibold">Events{inspecting !== null && inspecting >= 0 ? ` of turn ${inspecting}` : ''}</Dialog.Title>
            <Dialog.Description className="text-xs text-slate-600">{events.length} events, by seq</Dialog.Description>
            <label className="ml-auto flex items-center gap-1 text-xs text-slate-700">
              Filter by type or seq
              <input value={filter} onChange={(event) => setFilter(event.target.value)} className="rounded border border-slate-300 px-1 py-0.5 text-sm" />
            </label>
            <Dialog.Close className="rounded px-2 py-1 text-sm hover:bg-slate-100">Close</Dialog.Close>
          </div>
          <div ref={scroller} className="flex-1 overflow-y-auto font-mono text-xs" tabIndex={0} aria-label="Event list">
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((row) => {
                const event = events[row.index]!
                return (
                  <div key={event.seq} data-index={row.index} ref={virtualizer.measureElement} className="flex gap-2 border-b border-slate-100 px-3 py-1" style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${row.start}px)` }}>
                    <span className="w-12 shrink-0 text-right text-slate-600">{event.seq}</span>
                    <span className="w-48 shrink-0 font-medium">{event.type}</span>
                    <span className="break-all whitespace-pre-wrap text-slate-800">{JSON.stringify(event.data)}</span>
                  </div>
                )
              })}
            </div>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
