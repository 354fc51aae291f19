// Figure 4 (durable step), one contender in its own process: `node durable-child.mjs '<json>'`
// with { contender, variant, prior, samples }. One session holding `prior` messages (built
// untimed; LangGraph: passed as input of the untimed warm-up turn), one untimed warm-up turn,
// then `samples` timed turns in the same session. Around each timed turn it reads the size of
// the session's files (`files` from the contender: the JSONL file; the SQLite db + its -wal)
// and `wchar` from /proc/self/io (bytes the process passed to write(2)/pwrite(2), all threads).
// Prints one JSON line: { ok, priorMessages, wallMs[], growth[], wchar[], sizeAfter } or
// { ok: false, reason }. A turn is 2 model steps: per step = per turn ÷ 2.
import { readFileSync, statSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const config = JSON.parse(process.argv[2])
const loaders = {
  bosun: () => import('./contenders/bosun.mjs'),
  langgraph: () => import('./contenders/langgraph.mjs'),
}
const size = (files) => files.reduce((n, f) => { try { return n + statSync(f).size } catch { return n } }, 0)
const wchar = () => { try { return Number(/wchar:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))[1]) } catch { return NaN } }

async function main() {
  const { contender } = await loaders[config.contender]()
  const options = { prior: config.prior, chunks: 10, chunkSize: 10 }
  const c = await contender(config.variant, options)
  try {
    const session = await c.fresh()
    await (session.first ?? session.turn)('warm-up')
    const wallMs = [], growth = [], written = []
    for (let i = 0; i < config.samples; i++) {
      const s0 = size(session.files), w0 = wchar()
      const t0 = performance.now()
      const deltas = await session.turn('hello')
      const wall = performance.now() - t0
      const w1 = wchar(), s1 = size(session.files)
      if (deltas !== 10) throw new Error(`received ${deltas} text deltas, expected 10`)
      wallMs.push(wall); growth.push(s1 - s0); written.push(w1 - w0)
    }
    const sizeAfter = size(session.files)
    await session.close()
    return { ok: true, priorMessages: c.priorMessages, logEvents: c.logEvents, wallMs, growth, wchar: written, sizeAfter }
  } finally {
    await c.cleanup()
  }
}

main().then(
  (result) => { process.stdout.write(JSON.stringify(result) + '\n'); process.exit(0) },
  (error) => { process.stdout.write(JSON.stringify({ ok: false, reason: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }) + '\n'); process.exit(0) },
)
