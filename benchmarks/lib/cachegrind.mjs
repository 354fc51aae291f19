// Reading a cachegrind output file (ab-core.mjs --cachesim): the run's totals by event name.

/**
 * The `summary:` line of a cachegrind output file as `{ Ir, D1mr, D1mw, DLmr, DLmw, … }`, named
 * by its `events:` line. Throws if either line is missing (a run that did not finish).
 */
export function cachegrindTotals(text) {
  const events = text.match(/^events: (.+)$/m)?.[1].trim().split(/\s+/)
  const summary = text.match(/^summary: (.+)$/m)?.[1].trim().split(/\s+/).map(Number)
  if (!events || !summary || events.length !== summary.length) throw new Error('cachegrind output without matching events: and summary: lines')
  return Object.fromEntries(events.map((name, i) => [name, summary[i]]))
}

/** Data reads and writes that missed the first-level cache, and the simulated last level. */
export const dataMisses = (totals) => ({ d1: totals.D1mr + totals.D1mw, ll: totals.DLmr + totals.DLmw })
