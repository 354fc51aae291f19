// What sealing costs (docs/benchmarks.md section 6, goal 2, step 3): builds N of figure 6's idle
// sessions (memory-child.mjs's `idle()`), then times one sealIdleSessions() over them — wall, CPU,
// CPU µs per event, and the event loop's longest delay meanwhile (monitorEventLoopDelay).
//   BENCH_CORE=<core dist/index.js> node benchmarks/seal-cost.mjs [N=2000]
import { performance, monitorEventLoopDelay } from 'node:perf_hooks'
const N = Number(process.argv[2] ?? 2000)
const { contender } = await import('./contenders/bosun.mjs')
const core = await import(process.env.BENCH_CORE || '@bosun/core')
const c = await contender('memory', { prior: 40, chunks: 10, chunkSize: 10 })
const kept = []
for (let i = 0; i < N; i++) kept.push(await c.idle(false))
const h = monitorEventLoopDelay({ resolution: 1 })
h.enable()
const cpu0 = process.cpuUsage()
const t0 = performance.now()
const sealed = await core.sealIdleSessions()
const ms = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
h.disable()
console.log(JSON.stringify({ N, sealed, wallMs: +ms.toFixed(1), cpuMs: +((cpu.user + cpu.system) / 1000).toFixed(1), cpuUsPerEvent: +(((cpu.user + cpu.system)) / (N * 290)).toFixed(2), maxLoopDelayMs: +(h.max / 1e6).toFixed(1), p99LoopDelayMs: +(h.percentile(99) / 1e6).toFixed(1) }))
