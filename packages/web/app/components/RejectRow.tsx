import type { RejectRow as Reject } from '../state/view.js'
import { messageText } from '../state/wire.js'

/** A pre-step plugin refused the step: which plugin, its metadata, and the input it refused. */
export function RejectRow({ reject }: { reject: Reject }) {
  return (
    <section aria-label={`Rejected by ${reject.by}`} className="rounded border border-orange-300 bg-orange-50 p-2 text-sm text-orange-950">
      <div className="font-medium">Rejected before the model saw it, by the plugin {reject.by}</div>
      {reject.messages.map((message) => (
        <p key={message.id} className="mt-1 whitespace-pre-wrap italic">
          “{messageText(message)}”
        </p>
      ))}
      <pre className="mt-1 overflow-x-auto rounded bg-white/70 p-2 text-xs" aria-label="Reject metadata">
        {JSON.stringify(reject.metadata, null, 2)}
      </pre>
    </section>
  )
}
