// What sharing decoded strings (goal 2, step 5: `internString` in `freezeParsedJson`) costs an
// open: decoding a 100,000-event session, line by line, as the JSONL store does (JSON.parse, then
// freeze in place), with the freeze of two builds of @bosun/core, interleaved:
//   node benchmarks/memory-decode-cost.mjs <before-core-dist-index.js> [rounds=11] [events=100000]
//   node benchmarks/memory-decode-cost.mjs --count <core-dist-index.js | after> <events>
// (--count: one decode with one build and nothing else timed, for `valgrind --tool=callgrind node
// --single-threaded --predictable …` at two lengths: the difference ÷ the difference in events is
// the instructions of one event's decode, the same on a loaded machine.)
// "before" is a core built elsewhere (e.g. ab-core.mjs's way: `git archive <ref> …`, tsc); its
// freeze is the JSONL reader's own deep freeze if that build has no `internString`
// (lib/stored-log.mjs), `freezeParsedJson` otherwise. "after" is this tree's built dist. The
// events are figure 6's 291-event history repeated, seq renumbered. Prints ms per open (median,
// min–max) and the difference per event.
import { performance } from 'node:perf_hooks'
import { storeFreeze } from './lib/stored-log.mjs'

const argv = process.argv.slice(2)
const counting = argv[0] === '--count'
const [beforePath, roundsArg = '11', eventsArg = '100000'] = counting ? [argv[1], '0', argv[2]] : argv
if (!beforePath || (counting && !argv[2])) {
  console.error('usage: node benchmarks/memory-decode-cost.mjs <before-core-dist-index.js> [rounds=11] [events=100000]\n       node benchmarks/memory-decode-cost.mjs --count <core-dist-index.js | after> <events>')
  process.exit(2)
}
const rounds = Number(roundsArg)
const total = Number(eventsArg)
const after = await import('@bosun/core')
const before = beforePath === 'after' ? after : await import(beforePath)
// The 291 events of figure 6's history, as JSON lines (written once: the history is fixed).
const { contender } = await import('./contenders/bosun.mjs')
const c = await contender('memory', { prior: 40, chunks: 10, chunkSize: 10 })
const lines = []
for (let i = 0; i < total; i++) lines.push(JSON.stringify({ ...c.log[i % c.log.length], seq: i }))

/** One open's decode: each line parsed and frozen (one line at a time, as the reader does). */
function decode(core) {
  const freeze = storeFreeze(core)
  const events = new Array(lines.length)
  for (let i = 0; i < lines.length; i++) events[i] = freeze(JSON.parse(lines[i]))
  return events
}

if (counting) {
  if (decode(before).length !== total) throw new Error('lost events')
  process.exit(0)
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
