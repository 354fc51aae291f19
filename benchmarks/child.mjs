// One contender, one configuration, in its own process: `node child.mjs '<json>'`. Prints one JSON
// line: { ok, priorMessages, wallMs[], cpuMs[], deltas } or { ok: false, reason }.
// Each sample is a fresh session holding the prior history (built untimed), one untimed warm-up
// turn (first-use costs: hook compilation, graph compilation, lazy imports), then ONE timed turn.
import { performance } from 'node:perf_hooks'

const config = JSON.parse(process.argv[2])
const loaders = {
  bosun: () => import('./contenders/bosun.mjs'),
  pi: () => import('./contenders/pi.mjs'),
  ai: () => import('./contenders/ai.mjs'),
  langgraph: () => import('./contenders/langgraph.mjs'),
}

async function main() {
  const { contender } = await loaders[config.contender]()
  const options = { prior: config.prior ?? 100, chunks: config.chunks ?? 10, chunkSize: config.chunkSize ?? 10, pace: config.pace }
  const c = await contender(config.variant, options)
  const wallMs = []
  const cpuMs = []
  try {
    for (let i = 0; i < (config.warmup ?? 0) + (config.samples ?? 1); i++) {
      const session = await c.fresh()
      await (session.first ?? session.turn)('warm-up')
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      const deltas = await session.turn('hello')
      const wall = performance.now() - t0
      const cpu = process.cpuUsage(cpu0)
      await session.close()
      if (deltas !== options.chunks) throw new Error(`received ${deltas} text deltas, expected ${options.chunks}`)
      if (i >= (config.warmup ?? 0)) {
        wallMs.push(wall)
        cpuMs.push((cpu.user + cpu.system) / 1000)
      }
    }
  } finally {
    await c.cleanup()
  }
  return { ok: true, priorMessages: c.priorMessages, wallMs, cpuMs }
}

main().then(
  (result) => { process.stdout.write(JSON.stringify(result) + '\n'); process.exit(0) },
  (error) => { process.stdout.write(JSON.stringify({ ok: false, reason: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }) + '\n'); process.exit(0) },
)
