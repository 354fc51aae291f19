// One contender's steady-state turn in ONE session, measured by what does not depend on the
// machine's load as much as wall time does: `node --expose-gc turn-cost.mjs '<json>'`.
// Config: { contender, variant, prior, chunks, pace, warm, turns, promises } (pace: lib/conversation.mjs). The session (built with `prior`
// messages of history) runs `warm` turns, then — between two full collections — `turns` turns.
// Prints one JSON line: wall and CPU ms per turn; bytes allocated per turn (the heap used before
// each collection minus the heap used after the one before, summed over the window, from
// v8.GCProfiler); bytes retained per turn (heap used after the closing collection minus after the
// opening one); GC pause ms per turn and its share of the wall time; with `promises`, promises
// created per turn (async_hooks, a separate run: the hook slows everything down).
// `count` mode runs the turns and prints nothing else: for `valgrind --tool=callgrind`, where
// instructions per turn = (Ir at N2 turns − Ir at N1 turns) ÷ (N2 − N1).
import { createHook } from 'node:async_hooks'
import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'

const config = JSON.parse(process.argv[2])
const loaders = {
  bosun: () => import('./contenders/bosun.mjs'),
  pi: () => import('./contenders/pi.mjs'),
}

async function main() {
  const { contender } = await loaders[config.contender]()
  const c = await contender(config.variant ?? 'memory', { prior: config.prior ?? 100, chunks: config.chunks ?? 10, chunkSize: 10, pace: config.pace })
  const session = await c.fresh()
  for (let i = 0; i < (config.warm ?? 200); i++) await session.turn('warm-up')
  const turns = config.turns ?? 2000
  if (config.mode === 'count') {
    for (let i = 0; i < turns; i++) await session.turn('hello')
    return { ok: true }
  }
  if (config.promises) {
    let promises = 0
    const hook = createHook({ init(_id, type) { if (type === 'PROMISE') promises++ } }).enable()
    for (let i = 0; i < turns; i++) await session.turn('hello')
    hook.disable()
    return { ok: true, promisesPerTurn: promises / turns }
  }
  const profiler = new v8.GCProfiler()
  globalThis.gc()
  const start = v8.getHeapStatistics().used_heap_size
  profiler.start()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < turns; i++) {
    const deltas = await session.turn('hello')
    if (deltas !== (config.chunks ?? 10)) throw new Error(`received ${deltas} text deltas`)
  }
  const wall = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  globalThis.gc()
  const { statistics } = profiler.stop()
  let allocated = 0
  let previous = start
  let gcMicros = 0
  for (const gc of statistics) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - previous
    previous = gc.afterGC.heapStatistics.usedHeapSize
    gcMicros += gc.cost
  }
  // The closing collection is ours, not the turns': its pause is not counted.
  gcMicros -= statistics[statistics.length - 1]?.cost ?? 0
  await session.close()
  await c.cleanup()
  return {
    ok: true,
    wallMsPerTurn: wall / turns,
    cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / turns,
    allocatedBytesPerTurn: allocated / turns,
    retainedBytesPerTurn: (previous - start) / turns,
    gcMsPerTurn: gcMicros / 1000 / turns,
    gcShare: gcMicros / 1000 / wall,
  }
}

main().then(
  (result) => { if (config.mode !== 'count') process.stdout.write(JSON.stringify(result) + '\n'); process.exit(0) },
  (error) => { process.stdout.write(JSON.stringify({ ok: false, reason: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }) + '\n'); process.exit(1) },
)
