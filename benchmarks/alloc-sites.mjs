// Dev aid: where a contender's turn allocates, by function (V8's sampling heap profiler through
// the inspector, objects later collected included): `node benchmarks/alloc-sites.mjs [contender]
// [turns] [retained]` prints bytes per turn by allocating function (top 30); with `retained`,
// only what is still alive after the turns (what the retained log costs).
import { Session } from 'node:inspector/promises'

const [name = 'bosun', turnsArg = '3000', retainedArg] = process.argv.slice(2)
const retained = retainedArg === 'retained'
const { contender } = await import(`./contenders/${name}.mjs`)
const chunks = Number(process.env.BENCH_CHUNKS ?? 10)
const c = await contender('memory', { prior: 100, chunks, chunkSize: 10 })
const s = await c.fresh()
for (let i = 0; i < 200; i++) await s.turn('warm')
const inspector = new Session()
inspector.connect()
await inspector.post('HeapProfiler.enable')
await inspector.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: !retained, includeObjectsCollectedByMinorGC: !retained })
const turns = Number(turnsArg)
for (let i = 0; i < turns; i++) await s.turn('hello')
const { profile } = await inspector.post('HeapProfiler.stopSampling')
const bytes = new Map()
let total = 0
const walk = (node, stack) => {
  const frame = node.callFrame
  const here = `${frame.functionName || '(anon)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`
  const size = node.selfSize
  total += size
  if (size > 0) bytes.set(here, (bytes.get(here) ?? 0) + size)
  for (const child of node.children) walk(child, stack)
}
walk(profile.head, [])
console.log(`${name}: ${(total / turns).toFixed(0)} B / turn sampled (${retained ? 'retained' : 'allocated'})`)
for (const [site, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${(size / turns).toFixed(0).padStart(7)}  ${site}`)
await s.close()
await c.cleanup()
