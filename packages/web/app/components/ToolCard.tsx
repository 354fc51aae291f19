import { memo } from 'react'
import { useDisclosure } from '../state/disclosure.js'
import type { ToolCard as Card } from '../state/view.js'

/** Results longer than this are cut, with "Show all". */
export const RESULT_PREVIEW = 600

const statusText: Record<Card['status'], string> = {
  streaming: 'receiving arguments…',
  running: 'running…',
  done: 'done',
  error: 'failed',
  canceled: 'canceled',
}

/**
 * A tool call: its arguments (streaming in), its status and its result. `at` names the card in
 * its session (disclosure.ts), so "Show all" stays shown when the row is scrolled away and back.
 */
export const ToolCard = memo(function ToolCard({ card, at }: { card: Card; at?: string }) {
  const [all, setAll] = useDisclosure(at ?? `result:${card.callId ?? card.index}`, false)
  const long = card.result !== null && card.result.length > RESULT_PREVIEW
  const shown = card.result === null ? null : all || !long ? card.result : `${card.result.slice(0, RESULT_PREVIEW)}…`
  return (
    <section aria-label={`Tool ${card.name}`} className="rounded border border-slate-300 bg-slate-50 text-sm">
      <div className="flex items-center gap-2 border-b border-slate-200 px-2 py-1">
        <span className="font-mono font-medium">{card.name || 'tool'}</span>
        <span className={`text-xs ${card.status === 'error' ? 'text-red-800' : 'text-slate-700'}`} data-testid="tool-status">
          {statusText[card.status]}
        </span>
      </div>
      <pre className="overflow-x-auto px-2 py-1 font-mono text-xs whitespace-pre-wrap" aria-label="Arguments">
        {card.args}
      </pre>
      {shown === null ? null : (
        <div className="border-t border-slate-200 px-2 py-1">
          <pre className={`font-mono text-xs whitespace-pre-wrap ${card.status === 'error' ? 'text-red-900' : ''}`} aria-label="Result">
            {shown}
          </pre>
          {long ? (
            <button type="button" onClick={() => setAll(!all)} className="mt-1 text-xs text-sky-800 underline">
              {all ? 'Show less' : `Show all (${card.result!.length} characters)`}
            </button>
          ) : null}
        </div>
      )}
    </section>
  )
})
