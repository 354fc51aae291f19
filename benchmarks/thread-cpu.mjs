// Where figure 1's CPU time per turn runs: `node [v8 flags] benchmarks/thread-cpu.mjs '<json>'`
// with { contender, variant, prior, samples } (defaults: bosun, memory, 100, 300). Figure 1's
// loop (child.mjs: a fresh session with `prior` messages, one untimed warm-up turn, one timed
// turn), but around each timed turn it also reads every thread's CPU time from
// /proc/self/task/<tid>/schedstat (nanoseconds; Linux only) and the GC pauses that fell inside it.
// Prints one JSON line: per timed turn, the wall time, process.cpuUsage() (what figure 1
// reports), the main thread's CPU and the other threads' (V8's workers: concurrent compilation
// and marking), and how many GC pauses started inside the timed turns.
// Compare with `--no-concurrent-recompilation` or `--single-threaded-gc` to see which helper is
// which (docs/benchmarks.md, section 6). The main thread's figure includes reading /proc itself.
import { readdirSync, readFileSync } from 'node:fs'
import { performance, PerformanceObserver } from 'node:perf_hooks'

const config = { contender: 'bosun', variant: 'memory', prior: 100, samples: 300, ...JSON.parse(process.argv[2] ?? '{}') }
const { contender } = await import(`./contenders/${config.contender}.mjs`)
const WARMUP = 10

/** CPU ms so far of the main thread and of all other threads of this process. */
function threadCpu() {
  let main = 0
  let other = 0
  for (const tid of readdirSync('/proc/self/task')) {
    let ns
    try {
      ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      continue // a thread that ended meanwhile
    }
    if (Number(tid) === process.pid) main += ns / 1e6
    else other += ns / 1e6
  }
  return { main, other }
}

let pauses = []
new PerformanceObserver((list) => pauses.push(...list.getEntries())).observe({ entryTypes: ['gc'] })
const c = await contender(config.variant, { prior: config.prior, chunks: 10, chunkSize: 10 })
const sum = { wall: 0, cpu: 0, main: 0, other: 0, gcPauses: 0 }
for (let i = 0; i < WARMUP + config.samples; i++) {
  const session = await c.fresh()
  await session.turn('warm-up')
  pauses = []
  const threads0 = threadCpu()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await session.turn('hello')
  const wall = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const threads1 = threadCpu()
  await new Promise((resolve) => setImmediate(resolve)) // GC entries are delivered asynchronously
  await session.close()
  if (i < WARMUP) continue
  sum.wall += wall
  sum.cpu += (cpu.user + cpu.system) / 1000
  sum.main += threads1.main - threads0.main
  sum.other += threads1.other - threads0.other
  sum.gcPauses += pauses.filter((entry) => entry.startTime >= t0 && entry.startTime <= t0 + wall).length
}
await c.cleanup()
const per = (x) => Number((x / config.samples).toFixed(4))
console.log(JSON.stringify({
  ok: true, contender: config.contender, samples: config.samples, execArgv: process.execArgv,
  wallMsPerTurn: per(sum.wall), cpuUsageMsPerTurn: per(sum.cpu), mainThreadMsPerTurn: per(sum.main),
  otherThreadsMsPerTurn: per(sum.other), gcPausesInTimedTurns: sum.gcPauses,
}))
process.exit(0)
