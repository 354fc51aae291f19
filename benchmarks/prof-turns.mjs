// Dev aid (not part of the benchmark): batches of turns through one contender, for quick
// before/after checks and `node --cpu-prof`. Prints the median and min of the per-batch means.
import { performance } from 'node:perf_hooks'
const [name = 'bosun', variant = 'memory', batchesArg = '30', perBatchArg = '300'] = process.argv.slice(2)
const { contender } = await import(`./contenders/${name}.mjs`)
const c = await contender(variant, { prior: 10, chunks: 10, chunkSize: 10 })
const batches = Number(batchesArg)
const perBatch = Number(perBatchArg)
const means = []
for (let b = 0; b < batches; b++) {
  const s = await c.fresh()
  await s.turn('warm')
  const t0 = performance.now()
  for (let i = 0; i < perBatch; i++) await s.turn('hello')
  means.push((performance.now() - t0) / perBatch)
  await s.close()
}
const kept = means.slice(Math.floor(batches / 4)).sort((a, b) => a - b)
if (process.env.PROF_JSON) console.log(JSON.stringify(kept))
else console.log(`${name} ${variant}: median ${(kept[kept.length >> 1] * 1000).toFixed(1)} µs/turn, min ${(kept[0] * 1000).toFixed(1)}`)
await c.cleanup()
