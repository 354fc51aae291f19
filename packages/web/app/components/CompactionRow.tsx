import { memo } from 'react'
import type { CompactionView } from '../state/view.js'

/** A compaction: why it ran and, once written, the summary that replaces the older history. */
export const CompactionRow = memo(function CompactionRow({ compaction }: { compaction: CompactionView }) {
  return (
    <section aria-label="Compaction" className="mx-4 my-2 rounded border border-dashed border-violet-400 bg-violet-50 p-3 text-sm text-violet-950">
      <div className="font-medium">
        Compaction ({compaction.reason}){compaction.done ? '' : ' — running…'}
      </div>
      {compaction.summary === null ? null : (
        <details className="mt-1">
          <summary className="cursor-pointer">Summary{compaction.firstKeptSeq === null ? '' : ` (replaces events before seq ${compaction.firstKeptSeq})`}</summary>
          <p className="mt-1 whitespace-pre-wrap">{compaction.summary}</p>
        </details>
      )}
    </section>
  )
})
