// Figure 7 (concurrency), one contender in its own process: `node concurrency-child.mjs '<json>'`
// with { contender, variant, sessions, turns, prior, sharedStore?, warm? } (figure 4 runs it too, on the
// durable stores, with `sharedStore`: all Bosun sessions in one store). Builds `sessions` sessions (untimed; for
// LangGraph, threads on ONE shared compiled graph + MemorySaver via `thread()`, for the others
// `fresh()`), then runs them all at once: every session runs `turns` turns one after the other,
// all sessions concurrently in one event loop (Promise.all). Prints one JSON line: { ok,
// sessions, turns, totalMs, cpuMs, turnMs: { p50, p99, max } } or { ok: false, reason }. A
// turn's latency is from its `turn()` call to its return, so it includes time spent waiting
// while other sessions' work runs (the event loop is shared): that is the point of the figure.
// Turns whose caller did not receive exactly 10 text deltas are counted (wrongDeltaTurns), not fatal.
// Phases go to stderr (lib/progress.mjs): a child stopped by the time limit says where it was.
import { performance } from 'node:perf_hooks'
import { progress } from './lib/progress.mjs'

const config = JSON.parse(process.argv[2])
// LangGraph: with LangChain's default background callbacks, concurrent runs (≥ ~4 threads at once
// here) delivered few or none of the model's tokens to `streamMode: 'messages'` (callbacks
// queued in the background, not awaited); awaited callbacks deliver all of them. Set before
// @langchain/core is loaded.
if (config.contender === 'langgraph') process.env.LANGCHAIN_CALLBACKS_BACKGROUND ??= 'false'
const loaders = {
  bosun: () => import('./contenders/bosun.mjs'),
  pi: () => import('./contenders/pi.mjs'),
  ai: () => import('./contenders/ai.mjs'),
  langgraph: () => import('./contenders/langgraph.mjs'),
}

const q = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]

async function main() {
  progress('loading modules')
  const { contender } = await loaders[config.contender]()
  const options = { prior: config.prior ?? 0, chunks: 10, chunkSize: 10, sharedStore: config.sharedStore === true }
  const c = await contender(config.variant, options)
  const make = () => (c.thread ? c.thread() : c.fresh())
  try {
    // Warm-up: one session, `warm` turns (default 3: first-use costs), not counted. The figure
    // keeps 3; a larger `warm` (e.g. 3000) lets V8 finish optimizing first, for a steady-state
    // comparison (docs/benchmarks.md, section 6, "Sixth pass").
    { const s = await make(); for (let i = 0; i < (config.warm ?? 3); i++) await s.turn('warm-up'); await s.close() }
    progress(`building ${config.sessions} sessions`)
    const sessions = []
    for (let i = 0; i < config.sessions; i++) sessions.push(await make())
    progress(`running ${config.sessions} sessions × ${config.turns} turns`)
    const latencies = []
    let bad = 0
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    await Promise.all(sessions.map(async (s) => {
      for (let t = 0; t < config.turns; t++) {
        const a = performance.now()
        const deltas = await s.turn(`question ${t}`)
        latencies.push(performance.now() - a)
        if (deltas !== options.chunks) bad++
      }
    }))
    const totalMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    for (const s of sessions) await s.close()
    latencies.sort((a, b) => a - b)
    return {
      ok: true, sessions: config.sessions, wrongDeltaTurns: bad, turns: latencies.length, totalMs, cpuMs: (cpu.user + cpu.system) / 1000,
      turnMs: { p50: q(latencies, 0.5), p99: q(latencies, 0.99), max: latencies[latencies.length - 1] },
      rss: process.memoryUsage().rss,
    }
  } finally {
    await c.cleanup()
  }
}

main().then(
  (result) => { process.stdout.write(JSON.stringify(result) + '\n'); process.exit(0) },
  (error) => { process.stdout.write(JSON.stringify({ ok: false, reason: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }) + '\n'); process.exit(0) },
)
