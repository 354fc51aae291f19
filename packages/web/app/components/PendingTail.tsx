import { useApp } from './store-context.js'
import { messageText } from '../state/wire.js'

/**
 * Steering the model has not seen yet, drawn where it will enter: at the end of the conversation.
 * It leaves this list in the same fold step that its `user/message` enters a step.
 */
export function PendingTail() {
  const inFlight = useApp((state) => state.view.inFlight)
  const steering = useApp((state) => state.view.queues['next-step'])
  // Left queued by a Stop (the turn it was for ended), a steer has no turn to join: it enters the next turn's first step.
  const turnOpen = useApp((state) => state.view.openTurn !== null)
  const pending = [...inFlight.map((entry) => ({ message: entry.message, claimed: true, steer: entry.lane === 'next-step' })), ...steering.map((message) => ({ message, claimed: false, steer: true }))]
  if (pending.length === 0) return <div className="h-4" />
  return (
    <section aria-label="Pending steering" className="mx-4 my-2 flex flex-col gap-1">
      {pending.map(({ message, claimed, steer }) => (
        <div key={message.id} className="ml-auto max-w-[75%] rounded border border-dashed border-sky-400 bg-sky-50 px-3 py-2 text-sm text-sky-950">
          <span className="mr-2 text-xs font-medium uppercase">{steer ? 'steer' : 'next'} · {claimed ? 'entering…' : turnOpen ? 'pending' : 'pending — joins the next turn'}</span>
          <span className="whitespace-pre-wrap">{messageText(message)}</span>
        </div>
      ))}
    </section>
  )
}
