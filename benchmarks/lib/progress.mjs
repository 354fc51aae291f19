// For children that may be stopped (time limit) or die (heap): `BENCH_PROGRESS {json}` lines on
// stderr, at each phase and every 5 s, so that the parent can state where and with how much heap
// it stopped (lib/children.mjs). Heartbeats cannot fire inside a long synchronous call: the last
// reading is then the one before it.
import { performance } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'

const MiB = 2 ** 20
let phase = 'starting'
let timer

function report() {
  const line = { phase, s: Math.round(performance.now() / 100) / 10, heapMiB: Math.round(process.memoryUsage().heapUsed / MiB), heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / MiB) }
  process.stderr.write(`BENCH_PROGRESS ${JSON.stringify(line)}\n`)
}

/** Enters `next` (a phrase that follows "while": "writing the checkpoint"). */
export function progress(next) {
  phase = next
  timer ??= setInterval(report, 5000).unref()
  report()
}
