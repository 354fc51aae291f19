// Figure 6 (memory), one contender in its own process: `node --expose-gc memory-child.mjs '<json>'`
// with { contender, variant, prior, sessions, turn, seal? } (seal: false skips Bosun's sealIdleSessions()). Builds `sessions` idle sessions, each
// holding its own copy of a `prior`-message history (and, if `turn`, after one real turn), keeps
// them all alive, and prints one JSON line: { ok, priorMessages, sessions, baseHeap, heap,
// rss, perSession, buildMs } or { ok: false, reason }. heapUsed is read after `global.gc()`
// (twice; heapUsed, plus arrayBuffers/external: off-heap bytes such as serialized checkpoints), before (baseline: modules loaded, contender set up, a few sessions built and dropped)
// and after building the sessions; per session = (heap − baseline) ÷ sessions.
import { performance } from 'node:perf_hooks'

const config = JSON.parse(process.argv[2])
const loaders = {
  bosun: () => import('./contenders/bosun.mjs'),
  pi: () => import('./contenders/pi.mjs'),
  ai: () => import('./contenders/ai.mjs'),
  langgraph: () => import('./contenders/langgraph.mjs'),
}

function heapAfterGc() {
  global.gc()
  global.gc()
  const m = process.memoryUsage()
  return { heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external }
}

async function main() {
  if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc')
  const { contender } = await loaders[config.contender]()
  const options = { prior: config.prior ?? 40, chunks: config.chunks ?? 10, chunkSize: config.chunkSize ?? 10 }
  const c = await contender(config.variant, options)
  const turn = Boolean(config.turn)
  // Bosun seals an idle session's log into deflated pages 1–2 × idleMs (30 s) after its last
  // event; sealIdleSessions() does it now, so that the figure measures an idle session as it is
  // held after that time, without sleeping (a core without it: nothing to seal). The pages are
  // Buffers: they count in arrayBuffers/external, reported beside heapUsed.
  const seal = config.contender === 'bosun' && config.seal !== false ? (await import(process.env.BENCH_CORE || '@bosun/core')).sealIdleSessions : undefined
  // Warm-up: first-use costs (lazy imports, compiled hooks, the shared LangGraph graph).
  for (let i = 0; i < 3; i++) await c.idle(turn)
  await seal?.()
  const baseHeap = heapAfterGc()
  const kept = []
  const t0 = performance.now()
  for (let i = 0; i < config.sessions; i++) kept.push(await c.idle(turn))
  const buildMs = performance.now() - t0
  const sealed = seal === undefined ? undefined : await seal()
  const heap = heapAfterGc()
  const rss = process.memoryUsage().rss
  if (kept.length !== config.sessions) throw new Error('lost sessions')
  const per = (k) => (heap[k] - baseHeap[k]) / config.sessions
  return { ok: true, priorMessages: c.priorMessages, logEvents: c.logEvents, sessions: config.sessions, turn, baseHeap, heap, rss, perSession: { heapUsed: per('heapUsed'), arrayBuffers: per('arrayBuffers'), external: per('external') }, buildMs, ...(sealed === undefined ? {} : { sealed }) }
}

main().then(
  (result) => { process.stdout.write(JSON.stringify(result) + '\n'); process.exit(0) },
  (error) => { process.stdout.write(JSON.stringify({ ok: false, reason: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }) + '\n'); process.exit(0) },
)
