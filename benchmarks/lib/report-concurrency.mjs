// Figure 7 region: many sessions at once in one process. `long`: results.json's `long` key, if any.
import { commandLine, f, longTag, n, region, sp } from './report-common.mjs'
import { MEMORY } from './plan.mjs'

export function concurrencyRegion(fig7, long) {
  const { turns, sizes, longSize, runs, run } = fig7
  const L = ['### Figure 7 — concurrency: many sessions in one process', '', commandLine(run, 'one child per contender, size and round')]
  const lg = long?.fig7Size === longSize && long.turns === turns && long.fig7 ? long : undefined
  if (lg) L.push(`The AI SDK and LangGraph at ${n(longSize)} sessions: ${longTag(lg)} (\`node benchmarks/run.mjs --long\`, ${n(lg.run.seconds)} s for all its cells).`)
  L.push('', `**Protocol** (\`benchmarks/concurrency-child.mjs\`). N sessions with no prior history are built (untimed; one extra session runs 3 warm-up turns first), then all run at once in one event loop: each session runs ${turns} turns of the scripted conversation one after the other (2 model steps + 1 tool call + 10 text deltas each), all N sessions concurrently (\`Promise.all\`). Throughput = N × ${turns} ÷ wall time of the whole run. Turn latency = from a session's \`turn()\` call to its return, so it includes the time the session waits while the other sessions' work runs on the shared event loop; per step ≈ per turn ÷ 2. Cells: median over rounds (turns/s: min–max of the rounds); the last column sums the rounds. The AI SDK and LangGraph run in the first round only (one value: their cost dwarfs any spread). Bosun: one \`createAgent\` per session, each its own \`memoryStore()\`. pi: one \`Agent\` per session. AI SDK: one \`ModelMessage[]\` + \`streamText\` loop per session. LangGraph: ONE compiled \`createReactAgent\` graph + ONE \`MemorySaver\`, one thread per session.`, '')
  L.push('| contender | sessions × turns | wall s | turns/s (spread) | CPU s | turn latency p50 ms | p99 ms | step p50 ms | step p99 ms | turns with ≠ 10 deltas |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const size of sizes) {
    for (const c of MEMORY) {
      const fromLong = lg && size === longSize && lg.fig7[c.id]
      const r = fromLong ? lg.fig7[c.id] : runs[size][c.id]
      const label = fromLong ? `${c.label} (${longTag(lg)})` : c.label
      if (!r?.ok) { L.push(`| ${label} | ${n(size)} × ${turns} | not run: ${r?.reason ?? 'no result'} | | | | | | | |`); continue }
      L.push(`| ${label} | ${n(size)} × ${turns} | ${(r.totalMs / 1000).toFixed(2)} | ${sp(r.turnsPerS, (x) => n(Math.round(x)))} | ${(r.cpuMs / 1000).toFixed(2)} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.p50 / 2)} | ${f(r.p99 / 2)} | ${r.wrongDeltaTurns} |`)
    }
  }
  L.push('', `**Notes.** (1) With N sessions sharing one event loop, a turn's latency includes queueing behind the other N − 1 sessions, so p50/p99 here measure fairness and the total CPU cost per turn, not a single turn's overhead (that is figure 1). CPU s can exceed wall s: V8's GC helper threads. (2) The AI SDK and LangGraph at ${n(longSize)} sessions take minutes per child: those cells come from \`node benchmarks/run.mjs --long\` (with its date) or say how long they would take. (3) LangGraph runs with \`LANGCHAIN_CALLBACKS_BACKGROUND=false\` (set by the child): with LangChain's default background callbacks, concurrent runs delivered few or none of the model's tokens to the caller's \`streamMode: 'messages'\` stream (token callbacks are queued in the background, not awaited); with awaited callbacks every turn should deliver its 10 deltas (last column). Whether this changes its cost relative to figures 1–3 (which use the default) was not measured.`)
  return region('concurrency', L)
}
