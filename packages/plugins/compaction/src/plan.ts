import type { LedgerEntry } from './ledger.js'

/** Where a compaction cuts the history. */
export interface Cut {
  /** Surface messages `[0, count)` are replaced by the summary. */
  count: number
  /** The seq of the first kept event: a step's first `user/message`. */
  firstKeptSeq: number
  /** Estimated size of what is replaced, in characters. */
  replacedChars: number
  /** Estimated size of what is kept verbatim, in characters. */
  keptChars: number
}

/**
 * Chooses where to cut: right before the first `user/message` of a step, so that a tool call is
 * never separated from its result (both belong to one step), the kept part starts with a user
 * message, and the current step is never cut into. Of the possible cuts it takes the earliest
 * whose kept tail fits in `retainChars`; when even the last step alone does not fit, the last
 * step. `undefined` when no cut would replace anything but an earlier summary.
 *
 * A cut must come after the surface's leading summary (`seq` greater than the summary's): the
 * surface drops the messages before `firstKeptSeq` from its head, and stops at the summary.
 */
export function planCut(entries: readonly LedgerEntry[], retainChars: number): Cut | undefined {
  const head = entries[0]
  if (head === undefined) return undefined
  let total = 0
  for (const entry of entries) total += entry.chars
  const first = head.summary ? 2 : 1 // replacing only an earlier summary gains nothing
  let replaced = 0
  let latest: Cut | undefined
  for (let i = 1; i < entries.length; i++) {
    replaced += entries[i - 1]!.chars
    const entry = entries[i]!
    if (i < first || !entry.boundary || entry.seq <= head.seq) continue
    const cut = { count: i, firstKeptSeq: entry.seq, replacedChars: replaced, keptChars: total - replaced }
    if (cut.keptChars <= retainChars) return cut
    latest = cut
  }
  return latest
}
