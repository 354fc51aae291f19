// The PostgreSQL store beside the JSONL and SQLite stores, with 1, 8 and 64 sessions written at
// once by one store (one host): `node benchmarks/stores-postgres.mjs [--rounds N] [--appends K] [--turns T]`.
// Options: --pool P (the PostgreSQL store's poolSize, default 10), --sessions 1,8,64, --stores jsonl,sqlite,postgres.
// Needs the build (`pnpm build`) and a PostgreSQL: BOSUN_PG_URL, else a throwaway cluster from the
// binaries on the machine (as `startPostgres()` of @bosun/testkit finds them), on the same disk
// as the JSONL folder and the SQLite file, with PostgreSQL's defaults (fsync on, synchronous_commit on).
//
// - appends/s: every session appends one event (a 200-character payload) and awaits `flush()`,
//   K times; durable appends of all sessions per second of wall time, and the median flush.
// - per turn: every session is an agent running T tool turns (the conversation of
//   lib/conversation.mjs: 2 model steps, 1 tool call, 10 text deltas; 3 flushes a turn) one
//   after the other, all sessions at once; turns per second and the mean wall time of one turn.
// Prints a Markdown table (and the raw numbers as JSON on stderr).
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { LOG_FORMAT_VERSION, Session, createAgent } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { postgresStore } from '../packages/plugins/store-postgres/dist/index.js'
import { startPostgres } from '../packages/testkit/dist/index.js'
import { TOOL_ARGS_JSON, TOOL_DESCRIPTION, TOOL_NAME, answerDeltas, toolResult } from './lib/conversation.mjs'

const { values } = parseArgs({ options: {
  rounds: { type: 'string', default: '3' }, appends: { type: 'string', default: '400' }, turns: { type: 'string', default: '40' },
  // The PostgreSQL store's pool (its default is 10): at most this many sessions commit at once.
  pool: { type: 'string', default: '10' },
  sessions: { type: 'string', default: '1,8,64' }, stores: { type: 'string', default: 'jsonl,sqlite,postgres' },
} })
const ROUNDS = Number(values.rounds)
const SESSIONS = values.sessions.split(',').map(Number)

const tools = [{
  name: TOOL_NAME, description: TOOL_DESCRIPTION,
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  execute: ({ key }) => toolResult(key),
}]
async function* play(chunks) { for (const chunk of chunks) yield chunk }
const text = [...answerDeltas(10, 10).map((t) => ({ type: 'text-delta', text: t })), { type: 'finish', reason: 'stop' }]
const model = () => {
  let calls = 0
  return {
    name: 'bench',
    stream(request) {
      if (request.messages.at(-1)?.role === 'tool') return play(text)
      return play([{ type: 'tool-call-delta', index: 0, id: `call_${++calls}`, name: TOOL_NAME }, { type: 'tool-call-delta', index: 0, argumentsDelta: TOOL_ARGS_JSON }, { type: 'finish', reason: 'tool-calls' }])
    },
  }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }

/** Makes a fresh store of `kind` and the function that removes what it wrote. */
async function storeOf(kind, pgUrl, n) {
  if (kind === 'postgres') {
    const schema = `bench_${process.pid}_${n}_${Math.random().toString(36).slice(2, 8)}`
    const store = postgresStore({ url: pgUrl, schema, poolSize: Number(values.pool) })
    return { store, cleanup: async () => {
      const pg = createRequire(new URL('../packages/plugins/store-postgres/package.json', import.meta.url))('pg')
      const client = new pg.Client({ connectionString: pgUrl })
      await client.connect(); await client.query(`DROP SCHEMA "${schema}" CASCADE`); await client.end()
    } }
  }
  const dir = mkdtempSync(join(tmpdir(), 'bosun-bench-pg-'))
  const store = kind === 'jsonl' ? jsonlStore({ dir }) : sqliteStore({ file: join(dir, 'sessions.db') })
  return { store, cleanup: async () => rmSync(dir, { recursive: true, force: true }) }
}

async function appends(kind, pgUrl, n, perSession) {
  const { store, cleanup } = await storeOf(kind, pgUrl, n)
  const sessions = []
  for (let i = 0; i < n; i++) {
    const stored = await store.create({ id: `a${i}`, version: LOG_FORMAT_VERSION, createdAt: Date.now() })
    sessions.push({ stored, session: new Session(stored.header, stored.events, { writer: stored.writer }) })
  }
  const flushes = []
  const t0 = performance.now()
  await Promise.all(sessions.map(async ({ session }) => {
    for (let k = 0; k < perSession; k++) {
      session.append('test/value', { k, pad: 'x'.repeat(200) })
      const f0 = performance.now()
      await session.flush()
      flushes.push(performance.now() - f0)
    }
  }))
  const wall = performance.now() - t0
  for (const { stored } of sessions) await stored.writer.close()
  await store.close()
  await cleanup()
  return { perSecond: (n * perSession) / (wall / 1000), flushMs: median(flushes) }
}

async function turns(kind, pgUrl, n, perSession) {
  const { store, cleanup } = await storeOf(kind, pgUrl, n)
  const agents = []
  for (let i = 0; i < n; i++) agents.push(await createAgent({ model: model(), tools, store, sessionId: `t${i}` }))
  const turnMs = []
  const t0 = performance.now()
  await Promise.all(agents.map(async (agent) => {
    for (let k = 0; k < perSession; k++) {
      const s = performance.now()
      agent.followup('hello')
      await agent.whenIdle()
      turnMs.push(performance.now() - s)
    }
  }))
  const wall = performance.now() - t0
  for (const agent of agents) await agent.close()
  await store.close()
  await cleanup()
  return { perSecond: (n * perSession) / (wall / 1000), turnMs: turnMs.reduce((a, b) => a + b, 0) / turnMs.length }
}

const pg = await startPostgres()
try {
  const results = []
  for (const n of SESSIONS) {
    for (const kind of values.stores.split(',')) {
      const a = [], t = []
      for (let r = 0; r < ROUNDS; r++) {
        a.push(await appends(kind, pg.url, n, Math.max(20, Math.round(Number(values.appends) / n))))
        t.push(await turns(kind, pg.url, n, Math.max(3, Math.round(Number(values.turns) / n))))
      }
      // The best round: the machine is shared, and interference only ever slows a round down.
      const best = (xs, key) => Math.max(...xs.map((x) => x[key]))
      const least = (xs, key) => Math.min(...xs.map((x) => x[key]))
      results.push({ sessions: n, store: kind, appendsPerSecond: best(a, 'perSecond'), flushMs: least(a, 'flushMs'), turnsPerSecond: best(t, 'perSecond'), turnMs: least(t, 'turnMs') })
      process.stderr.write(`${JSON.stringify(results.at(-1))}\n`)
    }
  }
  const f = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
  console.log('| sessions | store | durable appends/s | median flush | turns/s | mean turn |')
  console.log('|---:|---|---:|---:|---:|---:|')
  for (const r of results) console.log(`| ${r.sessions} | ${r.store} | ${f(r.appendsPerSecond)} | ${f(r.flushMs, 2)} ms | ${f(r.turnsPerSecond, 1)} | ${f(r.turnMs, 1)} ms |`)
} finally {
  await pg.stop()
}
