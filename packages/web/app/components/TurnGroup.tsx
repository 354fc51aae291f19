import { memo } from 'react'
import { formatDuration, reasonLabel } from '../state/select.js'
import type { TurnView } from '../state/view.js'
import { RejectRow } from './RejectRow.js'
import { StepBlock } from './StepBlock.js'
import { useApp } from './store-context.js'

const reasonColours: Record<string, string> = {
  completed: 'border-emerald-300 bg-emerald-50 text-emerald-900',
  blocked: 'border-orange-300 bg-orange-50 text-orange-950',
  aborted: 'border-slate-400 bg-slate-100 text-slate-800',
  error: 'border-red-300 bg-red-50 text-red-900',
  'max-tokens': 'border-yellow-300 bg-yellow-50 text-yellow-950',
  interrupted: 'border-fuchsia-300 bg-fuchsia-50 text-fuchsia-950',
}

/** One turn: its steps (or its reject), its end reason and duration; fork and inspect once it ended. */
export const TurnGroup = memo(function TurnGroup({ turn }: { turn: TurnView }) {
  const fork = useApp((state) => state.fork)
  const inspect = useApp((state) => state.inspect)
  const ended = turn.reason !== null
  return (
    <article aria-label={`Turn ${turn.turn}`} className={`mx-4 my-3 rounded-lg border bg-white ${turn.seed ? 'border-slate-200 opacity-80' : 'border-slate-300'}`}>
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-1.5 text-sm">
        <h2 className="font-semibold">Turn {turn.turn}</h2>
        {turn.seed ? <span className="text-xs text-slate-600">(from the parent session)</span> : null}
        <span className={`rounded border px-1.5 text-xs ${turn.reason === null ? 'border-sky-300 bg-sky-50 text-sky-900' : (reasonColours[turn.reason.kind] ?? '')}`} data-testid="turn-reason">
          {reasonLabel(turn.reason)}
        </span>
        {turn.endTime === null ? null : <span className="text-xs text-slate-600">{formatDuration(turn.endTime - turn.startTime)}</span>}
        <span className="ml-auto flex gap-1">
          <button type="button" onClick={() => inspect(turn.turn)} className="rounded px-2 py-0.5 text-xs text-slate-700 hover:bg-slate-100" aria-label={`Inspect the events of turn ${turn.turn}`}>
            Events
          </button>
          {ended && !turn.seed ? (
            <button type="button" onClick={() => void fork(turn.turn)} className="rounded px-2 py-0.5 text-xs text-slate-700 hover:bg-slate-100" aria-label={`Fork from turn ${turn.turn}`}>
              Fork
            </button>
          ) : null}
        </span>
      </header>
      <div className="flex flex-col gap-2 p-3">
        {turn.steps.map((step) => (
          <StepBlock key={step.step} turn={turn.turn} step={step} />
        ))}
        {turn.rejected === null ? null : <RejectRow reject={turn.rejected} />}
        {turn.reason?.kind === 'error' ? (
          <p role="note" className="rounded border border-red-300 bg-red-50 p-2 text-sm text-red-900">
            {turn.reason.error.code}: {turn.reason.error.message}
          </p>
        ) : null}
      </div>
    </article>
  )
})
