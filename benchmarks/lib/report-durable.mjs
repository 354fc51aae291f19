// Figure 4 region: per-step overhead and bytes written per step with durable persistence.
import { commandLine, kb, n, region, sp } from './report-common.mjs'
import { DURABLE } from './plan.mjs'

export function durableRegion(fig4) {
  const { priors, samples, slowLargeSamples, runs, run } = fig4
  const L = ['### Figure 4 — durable step: per-step overhead and bytes written per step', '', commandLine(run, 'one child per contender, history size and round'), '']
  L.push(`**Protocol** (\`benchmarks/durable-child.mjs\`). One session per child holding the prior history (Bosun: the log written by the store's \`create\`; LangGraph: the history passed as input of the untimed warm-up turn, checkpointed by \`SqliteSaver\`), one untimed warm-up turn, then S timed turns in the same session (S = ${samples}; LangGraph at ${n(priors.at(-1))} messages: ${slowLargeSamples}). Around each turn: the size of the session's files (Bosun JSONL: \`<id>.jsonl\`; SQLite: the db + its \`-wal\`) and \`wchar\` from \`/proc/self/io\` (bytes the process handed to write(2)/pwrite(2), all threads: the WAL frames and checkpoint writes of SQLite included). A turn is 2 model steps + 1 tool call; per step = per turn ÷ 2. Wall: median over rounds of each child's median per step, (min–max of the round medians). Bytes: median over rounds of each child's median per step, and the mean over every timed turn of every round (which includes any SQLite WAL checkpoint that fell inside the timed turns). ${priors.map(n).join(' / ')} prior messages = ${priors.map((p) => n(p / 4)).join(' / ')} prior turns.`, '')
  L.push('| contender | prior turns | wall ms / step (spread) | file growth B / step (median) | written B / step (median) | written B / step (mean) | files after, KiB |', '|---|---:|---:|---:|---:|---:|---:|')
  for (const prior of priors) {
    for (const c of DURABLE) {
      const r = runs[prior][c.id]
      if (!r?.ok) { L.push(`| ${c.label} | ${n(prior / 4)} | not run: ${r?.reason} | | | | |`); continue }
      L.push(`| ${c.label} | ${n(prior / 4)} | ${sp(r.wallStep)} | ${n(Math.round(r.growthStep))} | ${n(Math.round(r.writtenStep))} | ${n(Math.round(r.writtenMeanStep))} | ${kb(r.sizeAfter)} |`)
    }
  }
  L.push('| pi-agent-core, session file | — | not run: pi-agent-core has no persistence (its `Agent` keeps state in memory; session files belong to pi-coding-agent\'s `SessionManager`, not benchmarked) | | | | |')
  L.push('', '**Notes.** (1) Bosun JSONL appends each turn\'s events (~29 lines incl. 10 `assistant/chunk` events) to the file. (2) SQLite (both) writes whole 4 KiB pages to the WAL (4,120 B per frame incl. header) and checkpoints the WAL into the db every ~1,000 pages, so "file growth" can be 0 or several MB for one turn and the mean of "written" is the amortised figure. (3) LangGraph\'s `SqliteSaver` stores a checkpoint per super-step holding the full `messages` channel value. (4) Figure 1 has per-turn figures of the same stores at 100 prior messages (a fresh session per sample).')
  return region('durable', L)
}
