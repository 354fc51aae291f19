// What sharing decoded strings (goal 2, step 5: `internString` in `freezeParsedJson`) costs an
// open: decoding a 100,000-event session, line by line, as the JSONL store does (JSON.parse, then
// freeze in place), with the freeze of two builds of @bosun/core, interleaved:
//   node benchmarks/memory-decode-cost.mjs <before-core-dist-index.js> [rounds=11] [events=100000]
// "before" is a core built elsewhere (e.g. ab-core.mjs's way: `git archive <ref> …`, tsc); its
// freeze is the JSONL reader's own deep freeze if that build has no `internString`
// (lib/stored-log.mjs), `freezeParsedJson` otherwise. "after" is this tree's built dist. The
// events are figure 6's 291-event history repeated, seq renumbered. Prints ms per open (median,
// min–max) and the difference per event.
import { performance } from 'node:perf_hooks'
import { storedLog } from './lib/stored-log.mjs'

const [beforePath, roundsArg = '11', eventsArg = '100000'] = process.argv.slice(2)
if (!beforePath) {
  console.error('usage: node benchmarks/memory-decode-cost.mjs <before-core-dist-index.js> [rounds=11] [events=100000]')
  process.exit(2)
}
const rounds = Number(roundsArg)
const total = Number(eventsArg)
const before = await import(beforePath)
const after = await import('@bosun/core')
const { contender } = await import('./contenders/bosun.mjs')
const c = await contender('memory', { prior: 40, chunks: 10, chunkSize: 10 })
const lines = []
for (let i = 0; i < total; i++) lines.push(JSON.stringify({ ...c.log[i % c.log.length], seq: i }))

/** One open's decode: each line parsed and frozen (one line at a time, as the reader does). */
function decode(core) {
  const events = new Array(lines.length)
  for (let i = 0; i < lines.length; i++) events[i] = storedLog(`[${lines[i]}]`, core)[0]
  return events
}

const times = { before: [], after: [] }
const sink = []
for (let round = 0; round < rounds + 1; round++) {
  for (const [name, core] of round % 2 === 0 ? [['before', before], ['after', after]] : [['after', after], ['before', before]]) {
    const t0 = performance.now()
    sink[0] = decode(core)
    const ms = performance.now() - t0
    if (round > 0) times[name].push(ms) // round 0 warms both up
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const name of ['before', 'after']) {
  const xs = times[name]
  console.log(`${name.padEnd(6)} ${median(xs).toFixed(1)} ms per ${total}-event decode (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}), ${rounds} rounds`)
}
console.log(`after − before: ${((median(times.after) - median(times.before)) * 1e6 / total).toFixed(0)} ns per event (medians)`)
