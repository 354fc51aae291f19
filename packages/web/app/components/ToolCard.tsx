import { memo } from 'react'
import { useDisclosure } from '../state/disclosure.js'
import type { ToolCard as Card } from '../state/view.js'

/** Arguments and results longer than this are cut, with "Show all". */
export const RESULT_PREVIEW = 600

const statusText: Record<Card['status'], string> = {
  streaming: 'receiving arguments…',
  running: 'running…',
  done: 'done',
  error: 'failed',
  canceled: 'canceled',
}

/**
 * A tool call: its arguments (streaming in), its status and its result. `at` names the card's
 * result in its session (disclosure.ts; its arguments are `args:<at>`), so "Show all" stays shown
 * when the row is scrolled away and back.
 */
export const ToolCard = memo(function ToolCard({ card, at }: { card: Card; at?: string }) {
  const resultAt = at ?? `result:${card.callId ?? card.index}`
  return (
    <section aria-label={`Tool ${card.name}`} className="rounded border border-slate-300 bg-slate-50 text-sm">
      <div className="flex items-center gap-2 border-b border-slate-200 px-2 py-1">
        <span className="font-mono font-medium">{card.name || 'tool'}</span>
        <span className={`text-xs ${card.status === 'error' ? 'text-red-800' : 'text-slate-700'}`} data-testid="tool-status">
          {statusText[card.status]}
        </span>
      </div>
      {/* Arguments are cut as results are: a file written whole (100 KB of JSON) was a wall of it, laid out again for every chunk streamed in. */}
      <div className="px-2 py-1">
        <Cut text={card.args} label="Arguments" showAll="Show all arguments" at={`args:${resultAt}`} />
      </div>
      {card.result === null ? null : (
        <div className="border-t border-slate-200 px-2 py-1">
          <Cut text={card.result} label="Result" showAll="Show all" at={resultAt} className={card.status === 'error' ? 'text-red-900' : ''} />
        </div>
      )}
    </section>
  )
})

/** `text` in a <pre>, its first {@link RESULT_PREVIEW} characters only until "Show all" (kept under `at`). */
function Cut({ text, label, showAll, at, className = '' }: { text: string; label: string; showAll: string; at: string; className?: string }) {
  const [all, setAll] = useDisclosure(at, false)
  const long = text.length > RESULT_PREVIEW
  return (
    <>
      <pre className={`overflow-x-auto font-mono text-xs whitespace-pre-wrap ${className}`} aria-label={label}>
        {all || !long ? text : `${text.slice(0, RESULT_PREVIEW)}…`}
      </pre>
      {long ? (
        <button type="button" onClick={() => setAll(!all)} className="mt-1 text-xs text-sky-800 underline">
          {all ? 'Show less' : `${showAll} (${text.length} characters)`}
        </button>
      ) : null}
    </>
  )
}
