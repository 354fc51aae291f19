// Figure 4 region: per-step overhead and bytes written per step with durable persistence.
import { commandLine, f, kb, n, region, sp } from './report-common.mjs'
import { CONCURRENT_DURABLE, DURABLE } from './plan.mjs'

export function durableRegion(fig4) {
  const { priors, samples, slowLargeSamples, runs, run, concurrent = [], concurrency = {} } = fig4
  const L = ['### Figure 4 — durable step: per-step overhead and bytes written per step', '', commandLine(run, 'one child per contender, history size and round'), '']
  L.push(`**Protocol** (\`benchmarks/durable-child.mjs\`). One session per child holding the prior history (Bosun: the log written by the store's \`create\`; LangGraph: the history passed as input of the untimed warm-up turn, checkpointed by \`SqliteSaver\`), one untimed warm-up turn, then S timed turns in the same session (S = ${samples}; LangGraph at ${n(priors.at(-1))} messages: ${slowLargeSamples}). Around each turn: the size of the session's files (Bosun JSONL: \`<id>.jsonl\`; SQLite: the db + its \`-wal\`) and \`wchar\` from \`/proc/self/io\` (bytes the process handed to write(2)/pwrite(2), all threads: the WAL frames and checkpoint writes of SQLite included). A turn is 2 model steps + 1 tool call; per step = per turn ÷ 2. Wall: median over rounds of each child's median per step, (min–max of the round medians). Bytes: median over rounds of each child's median per step, and the mean over every timed turn of every round (which includes any SQLite WAL checkpoint that fell inside the timed turns). ${priors.map(n).join(' / ')} prior messages = ${priors.map((p) => n(p / 4)).join(' / ')} prior turns. LangGraph runs in the first round only (one value: at 3–5× Bosun's time per step its spread decides nothing here).`, '')
  L.push('| contender | prior turns | wall ms / step (spread) | file growth B / step (median) | written B / step (median) | written B / step (mean) | files after, KiB |', '|---|---:|---:|---:|---:|---:|---:|')
  for (const prior of priors) {
    for (const c of DURABLE) {
      const r = runs[prior][c.id]
      if (!r?.ok) { L.push(`| ${c.label} | ${n(prior / 4)} | not run: ${r?.reason} | | | | |`); continue }
      L.push(`| ${c.label} | ${n(prior / 4)} | ${sp(r.wallStep)} | ${n(Math.round(r.growthStep))} | ${n(Math.round(r.writtenStep))} | ${n(Math.round(r.writtenMeanStep))} | ${kb(r.sizeAfter)} |`)
    }
  }
  L.push('| pi-agent-core, session file | — | not run: pi-agent-core has no persistence (its `Agent` keeps state in memory; session files belong to pi-coding-agent\'s `SessionManager`, not benchmarked) | | | | |')
  L.push('', '**Notes.** (1) Bosun JSONL appends each turn\'s events (~29 lines incl. 10 `assistant/chunk` events) to the session file, and the same bytes once more to the store journal (`journal: true`, the default since issue 20 goal 4: each batch is made durable by the journal\'s one fdatasync per commit round, the session file synced at checkpoints and on close), so "written" is about twice "file growth"; the journal is cut at every 4 MiB checkpoint and deleted on close, so the folder does not keep it. (2) SQLite writes whole pages to the WAL (a frame is a page + 24 B: Bosun\'s databases have 1 KiB pages since layout 2, LangGraph\'s SqliteSaver 4 KiB) and checkpoints the WAL into the db every ~1,000 pages, so "file growth" can be 0 or several MB for one turn and the mean of "written" is the amortised figure. Bosun SQLite: layout 2 (`packages/plugins/store-sqlite/src/schema.ts`; layout 1 wrote 22,660 B per step, see docs/benchmarks.md, section 4). (3) LangGraph\'s `SqliteSaver` stores a checkpoint per super-step holding the full `messages` channel value. (4) Figure 1 has per-turn figures of the same stores at 100 prior messages (a fresh session per sample).')
  if (concurrent.length) {
    const pct = (x) => `${(x * 100).toFixed(0)}%`
    L.push('', '#### Figure 4b — durable sessions at once: N sessions in one process, one store', '')
    L.push(`**Protocol** (\`benchmarks/concurrency-child.mjs\` with \`sharedStore\`, one child per store, N and round, interleaved with the cells above). N sessions with no prior history, all in ONE store (memory: one \`memoryStore()\`; JSONL: one folder; SQLite: one database file; \`batchWindowMs: 0\`), each run by its own agent, all N at once in one event loop, each session running T turns one after the other (${concurrent.map((c) => `N = ${n(c.sessions)}: T = ${n(c.turns)}`).join('; ')}); one extra session runs 3 untimed warm-up turns first. Each turn flushes three times (durable stores: each flush a durable write). Turns/s = N × T ÷ wall time: median over rounds (min–max). "Of memory": each round's turns/s divided by the memory store's in the same round, median (min–max) over rounds. CPU: user + system of the whole process (the thread pool's syscalls included) per turn. Latency: from a session's \`turn()\` call to its return (includes waiting for the other sessions on the shared event loop).`, '')
    L.push('| sessions × turns | store | turns/s (spread) | of memory (spread) | CPU ms / turn | turn p50 ms | turn p99 ms |', '|---:|---|---:|---:|---:|---:|---:|')
    for (const { sessions, turns } of concurrent) {
      for (const c of CONCURRENT_DURABLE) {
        const r = concurrency[sessions]?.[c.id]
        const label = c.label.replace('Bosun, ', '')
        if (!r?.ok) { L.push(`| ${n(sessions)} × ${n(turns)} | ${label} | not run: ${r?.reason} | | | | |`); continue }
        const of = c.id === 'bosun-memory' ? '100%' : r.ofMemory ? sp(r.ofMemory, pct) : '—'
        L.push(`| ${n(sessions)} × ${n(turns)} | ${label} | ${sp(r.turnsPerS, (x) => n(Math.round(x)))} | ${of} | ${f(r.cpuMsPerTurn)} | ${f(r.p50)} | ${f(r.p99)} |`)
      }
    }
  }
  return region('durable', L)
}
