// Figure 5 (resume), one contender in its own process: `node resume-child.mjs '<json>'` with
// { contender, variant, events, reps, dir, phase }. `phase: 'prepare'` (untimed, once per size)
// writes the stored session into `dir`; `phase: 'measure'` (once per round, a fresh process) times
// reopening it `reps` times (median), the reps alternating between the ways timed, after
// WARM_UP untimed reopens by each way when `reps` > 1 at up to 10,000 events (timeWays). The
// session is about `events` Bosun log events of real turns of the scripted conversation (29
// events / 4 messages per turn): the contender's seed log, built once per size and kept in
// `dir/seed.json` for the other Bosun store.
// Bosun JSONL / SQLite: the log written with the store's `create(header, events)`; reopen =
// `store.open(id)` alone, and `createAgent({ model, store, sessionId })` (open + core rebuild), on a
// new store object each time (SQLite: a new connection), closed afterwards. JSONL also times a
// plain readFile + split + JSON.parse of each line of the same file (the floor). LangGraph: a
// thread holding the same number of messages (turns × 4), written once into a `SqliteSaver` db
// with `graph.updateState` as the agent node; reopen = a new `SqliteSaver` on the file + a new
// compiled graph + `graph.getState(thread)`. Each is first run once, untimed, on an id that does not
// exist (native addon, first connection), then (see timeWays) WARM_UP times on the stored one. Files
// are in the page cache: warm reopen, no cold disk.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { progress } from './lib/progress.mjs'

const config = JSON.parse(process.argv[2])
const EVENTS_PER_TURN = 29
const turns = Math.max(1, Math.round(config.events / EVENTS_PER_TURN))
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2 }
const size = (...files) => files.reduce((n, f) => { try { return n + statSync(f).size } catch { return n } }, 0)

const HEADER = { id: 'big', version: 1, createdAt: 0 }
const model = { name: 'resume', stream() { throw new Error('no model call on resume') } }

async function bosun(dir) {
  const { createAgent } = await import('@bosun/core')
  const jsonl = config.variant === 'jsonl'
  const file = join(dir, jsonl ? 'big.jsonl' : 'big.db')
  // Imported before any timing: module loading is not part of a reopen.
  // BENCH_STORE_JSONL / BENCH_STORE_SQLITE: another build of the store (ab-stores.mjs).
  const { jsonlStore } = jsonl ? await import(process.env.BENCH_STORE_JSONL ?? '@bosun/plugin-store-jsonl') : {}
  const { sqliteStore } = jsonl ? {} : await import(process.env.BENCH_STORE_SQLITE ?? '@bosun/plugin-store-sqlite')
  const newStore = async () => (jsonl ? jsonlStore({ dir }) : sqliteStore({ file, batchWindowMs: 0 }))
  const bytes = () => (jsonl ? size(file) : size(file, `${file}-wal`))
  if (config.phase === 'prepare') {
    const seedFile = join(dir, 'seed.json')
    if (!existsSync(seedFile)) {
      progress(`building the seed log (${turns.toLocaleString('en')} turns)`)
      // The contender's seed: real turns on a memory store (its log).
      const { contender } = await import('./contenders/bosun.mjs')
      const c = await contender('memory', { prior: turns * 4, chunks: 10, chunkSize: 10 })
      writeFileSync(seedFile, JSON.stringify({ messages: turns * 4, log: c.log }))
    }
    progress('reading the seed log')
    const seed = JSON.parse(readFileSync(seedFile, 'utf8'))
    progress(`writing the ${config.variant} store`)
    const store = await newStore()
    const stored = await store.create(HEADER, seed.log)
    await stored.writer.close()
    await store.close()
    return { events: seed.log.length, messages: seed.messages, bytes: bytes() }
  }
  progress('reopening')
  const plain = async () => {
    const lines = (await readFile(file, 'utf8')).split('\n'); lines.pop()
    const events = new Array(lines.length - 1)
    for (let i = 1; i < lines.length; i++) events[i - 1] = JSON.parse(lines[i])
    return events.length
  }
  const open = async () => { const store = await newStore(); const s = await store.open('big'); const n = s.events.length; await s.writer.close(); await store.close(); return n }
  const agent = async () => { const store = await newStore(); const a = await createAgent({ model, store, sessionId: 'big' }); const n = a.session.length; await a.close(); await store.close(); return n }
  // Untimed: first-use costs (native addon, first connection) on a session id that does not exist.
  { const store = await newStore(); if (await store.open('absent')) throw new Error('unexpected session'); await store.close() }
  const ways = { ...(jsonl ? { plainMs: plain } : {}), openMs: open, createAgentMs: agent }
  const t = await timeWays(ways)
  if (t.out.createAgentMs !== t.out.openMs) throw new Error(`createAgent saw ${t.out.createAgentMs} events, store.open ${t.out.openMs}`)
  return { ...t.ms, events: t.out.openMs, bytes: bytes() }
}

/** Untimed reopens by each way before the timed ones, when there are several of those (see timeWays). */
const WARM_UP = 10
/**
 * Above this many events, no warm-up: a reopen takes hundreds of ms there (ab-stores.mjs times 3
 * at 100,000), 10 more would cost seconds per child, and warming up is a small part of one.
 */
const WARM_UP_MAX_EVENTS = 10_000

/**
 * Times each of `ways` (name → reopen) `config.reps` times, the reps alternating between them
 * (median each). With more than one rep (up to {@link WARM_UP_MAX_EVENTS} events), each way first
 * reopens the stored session {@link WARM_UP} times untimed: in a fresh process the first reopens also compile and optimise
 * the code that parses and rebuilds — at ~1,000 events every contender took about 8 reopens to
 * settle (LangGraph's `getState` 25, 60–100, … then ~5 ms) — so 5 reps right after start measured
 * V8 warming up, and the way timed first paid the most: Bosun JSONL's `store.open` showed 12.2 ms
 * against 6.07 for `createAgent`, which does the same open and more (docs/benchmarks.md,
 * "Eleventh pass"). A host that reopens sessions often runs that code warm. One rep (figure 5's
 * large sizes) is a first reopen in a fresh process, where warming up is a small part of it.
 */
async function timeWays(ways) {
  const entries = Object.entries(ways)
  const warmUps = config.reps > 1 && config.events <= WARM_UP_MAX_EVENTS ? WARM_UP : 0
  for (let i = 0; i < warmUps; i++) for (const [, fn] of entries) await fn()
  const ms = Object.fromEntries(entries.map(([name]) => [name, []]))
  const out = {}
  for (let i = 0; i < config.reps; i++) {
    for (const [name, fn] of entries) { const t0 = performance.now(); out[name] = await fn(); ms[name].push(performance.now() - t0) }
  }
  return { ms: Object.fromEntries(entries.map(([name]) => [name, median(ms[name])])), out }
}

async function langgraph(dir) {
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite')
  const { createReactAgent } = await import('@langchain/langgraph/prebuilt')
  const { BenchChatModel, historyOf, lookup } = await import('./contenders/langgraph.mjs')
  const { answerDeltas } = await import('./lib/conversation.mjs')
  const deltas = answerDeltas(10, 10)
  const file = join(dir, 'lg.db')
  const thread = { configurable: { thread_id: 'big' } }
  const graphOn = (saver) => createReactAgent({ llm: new BenchChatModel(deltas), tools: [lookup], checkpointer: saver })
  if (config.phase === 'prepare') {
    progress(`building ${(turns * 4).toLocaleString('en')} messages`)
    const messages = historyOf(turns * 4, deltas)
    progress('writing the checkpoint (graph.updateState)')
    const saver = SqliteSaver.fromConnString(file)
    await graphOn(saver).updateState(thread, { messages }, 'agent')
    saver.db.close()
    return { messages: messages.length, bytes: size(file, `${file}-wal`) }
  }
  progress('reading the checkpoint back (graph.getState)')
  // Untimed: first-use costs (native addon, graph compilation) on a thread that does not exist.
  { const saver = SqliteSaver.fromConnString(file); await graphOn(saver).getState({ configurable: { thread_id: 'absent' } }); saver.db.close() }
  const t = await timeWays({
    getStateMs: async () => {
      const saver = SqliteSaver.fromConnString(file)
      const state = await graphOn(saver).getState(thread)
      const n = state.values.messages.length
      saver.db.close()
      return n
    },
  })
  if (t.out.getStateMs !== turns * 4) throw new Error(`getState returned ${t.out.getStateMs} messages, expected ${turns * 4}`)
  return { messages: t.out.getStateMs, bytes: size(file, `${file}-wal`), getStateMs: t.ms.getStateMs }
}

async function main() {
  progress('loading modules')
  mkdirSync(config.dir, { recursive: true })
  if (config.contender === 'bosun' && (config.variant === 'jsonl' || config.variant === 'sqlite')) return { ok: true, ...(await bosun(config.dir)) }
  if (config.contender === 'langgraph' && config.variant === 'sqlite') return { ok: true, ...(await langgraph(config.dir)) }
  throw new Error(`no resume measurement for ${config.contender} ${config.variant}`)
}

main().then(
  (result) => { process.stdout.write(JSON.stringify(result) + '\n'); process.exit(0) },
  (error) => { process.stdout.write(JSON.stringify({ ok: false, reason: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }) + '\n'); process.exit(0) },
)
