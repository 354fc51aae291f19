import { useState, type DragEvent, type KeyboardEvent } from 'react'
import { QueueItem } from './QueueItem.js'
import { useApp } from './store-context.js'

/** Moves `id` by `delta` places in `order` (clamped); the same order when it cannot move. */
export function moved(order: readonly string[], id: string, delta: number): string[] {
  const from = order.indexOf(id)
  const to = Math.min(order.length - 1, Math.max(0, from + delta))
  if (from < 0 || from === to) return [...order]
  const next = [...order]
  next.splice(from, 1)
  next.splice(to, 0, id)
  return next
}

/**
 * The queued follow-ups, in the order their turns will run: edit, remove, promote to steer, and
 * reorder by dragging or from the keyboard (Alt+↑ / Alt+↓ on a focused item, or its menu).
 */
export function QueueDock() {
  const queue = useApp((state) => state.view.queues['next-turn'])
  const reorder = useApp((state) => state.reorder)
  const [dragging, setDragging] = useState<string | null>(null)
  if (queue.length === 0) return null
  const order = queue.map((message) => message.id)
  const move = (id: string, delta: number): void => {
    const next = moved(order, id, delta)
    if (next.join('\n') !== order.join('\n')) void reorder(next)
  }
  const onDrop = (event: DragEvent, target: string): void => {
    event.preventDefault()
    if (dragging === null || dragging === target) return
    move(dragging, order.indexOf(target) - order.indexOf(dragging))
    setDragging(null)
  }
  const onKeyDown = (event: KeyboardEvent, id: string): void => {
    if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return
    event.preventDefault()
    move(id, event.key === 'ArrowUp' ? -1 : 1)
  }
  return (
    // The dock gives way to the conversation (Timeline's min-height), its list scrolling in what is left: a long
    // queue in a short window (a phone) otherwise squeezed the running answer out of view.
    <section aria-label="Queue" className="flex min-h-0 flex-col border-t border-slate-300 bg-slate-100 px-3 py-2">
      <h2 className="mb-1 text-xs font-medium text-slate-700">
        Queued follow-ups ({queue.length}) — each runs as its own turn, top first. Drag or Alt+↑/↓ to reorder.
      </h2>
      <ol className="flex max-h-56 min-h-0 flex-col gap-1 overflow-y-auto">
        {queue.map((message, index) => (
          <QueueItem
            key={message.id}
            message={message}
            position={index}
            count={queue.length}
            onMove={(delta) => move(message.id, delta)}
            dragProps={{
              draggable: true,
              onDragStart: (event: DragEvent) => {
                event.dataTransfer.effectAllowed = 'move'
                event.dataTransfer.setData('text/plain', message.id)
                setDragging(message.id)
              },
              onDragOver: (event: DragEvent) => event.preventDefault(),
              onDrop: (event: DragEvent) => onDrop(event, message.id),
              onDragEnd: () => setDragging(null),
              onKeyDown: (event: KeyboardEvent) => onKeyDown(event, message.id),
            }}
          />
        ))}
      </ol>
    </section>
  )
}
