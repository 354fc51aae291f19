import { memo } from 'react'
import { answerPreview } from '../state/select.js'
import type { ChildView } from '../state/view.js'
import { useApp } from './store-context.js'

/** A subagent child spawned in this step: who it is, whether it runs or settled (and how), its answer; open it or interrupt it. */
export const ChildCard = memo(function ChildCard({ child }: { child: ChildView }) {
  const select = useApp((state) => state.select)
  const interrupt = useApp((state) => state.interruptChild)
  const status = child.status === 'running' ? 'running…' : `settled${child.reason === null ? '' : `: ${child.reason}`}`
  return (
    <section aria-label={`Child agent ${child.childId}`} className="rounded border border-violet-300 bg-violet-50 text-sm">
      <div className="flex flex-wrap items-center gap-2 border-b border-violet-200 px-2 py-1">
        <span className="font-medium">Child</span>
        <span className="truncate font-mono text-xs">{child.childId}</span>
        <span className="text-xs text-slate-700">{child.mode}</span>
        {child.profile === null ? null : <span className="text-xs text-slate-700">profile: {child.profile}</span>}
        <span className={`text-xs ${child.status === 'settled' && child.reason !== null && child.reason !== 'completed' ? 'text-amber-800' : 'text-slate-700'}`} data-testid="child-status">
          {status}
        </span>
        {child.epochs > 1 ? <span className="text-xs text-slate-700">{child.epochs} settlements</span> : null}
        <span className="ml-auto flex gap-1">
          <button type="button" onClick={() => select(child.childId)} aria-label={`Open child ${child.childId}`} className="rounded border border-slate-300 bg-white px-2 py-0.5 text-xs hover:bg-slate-100">
            Open
          </button>
          <button type="button" onClick={() => void interrupt(child.childId)} disabled={child.status !== 'running'} aria-label={`Interrupt child ${child.childId}`} className="rounded border border-slate-300 bg-white px-2 py-0.5 text-xs hover:bg-slate-100 disabled:opacity-50">
            Interrupt
          </button>
        </span>
      </div>
      {child.answer === null || child.answer === '' ? null : (
        <p className="truncate px-2 py-1 text-xs" title={child.answer} data-testid="child-answer">
          {answerPreview(child.answer)}
        </p>
      )}
    </section>
  )
})
