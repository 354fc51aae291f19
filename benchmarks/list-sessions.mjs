// Task H2: what `bosun sessions list` costs on a SQLite store of long sessions, before and after
// the store kept list summaries; task R2: the same on a JSONL store (the default), before and
// after its summary files. `node benchmarks/list-sessions.mjs [sessions] [events] [rounds] [store]`
// (after `npx tsc -b tsconfig.build.json`; `store` is `sqlite`, the default, or `jsonl`): builds a
// store of `sessions` sessions × `events` events (turns of a user message, 24 chunks, a tool call
// and result, queued messages), then times the CLI's own listing (packages/cli/dist/session-list.js)
// `rounds` times each way, interleaved: `full`, the store's list without its summary fields, so
// every log is read and summarised as before; `summary`, as the CLI lists now. Prints one JSON line
// per round and the medians. Task S1: a 5th argument `host` times the host's `GET /v1/sessions`
// instead (packages/host/dist, `host.fetch`, no socket): `full`, the store's list without its
// summary fields, so the host reads and folds every log as it did before; `summary`, the rows from
// the store's list entries (`node benchmarks/list-sessions.mjs 50 10000 5 jsonl host`).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createUserMessage } from '@bosun/core'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { loadavg } from 'node:os'
import { scripted } from '@bosun/adapter-scripted'
import { createHost } from '@bosun/host'
import { listSessions } from '../packages/cli/dist/session-list.js'
import { storeReader } from '../packages/cli/dist/session-reader.js'

const sessions = Number(process.argv[2] ?? 50)
const length = Number(process.argv[3] ?? 10_000)
const rounds = Number(process.argv[4] ?? 5)
const kind = process.argv[5] ?? 'sqlite'
if (kind !== 'sqlite' && kind !== 'jsonl') throw new Error(`store must be sqlite or jsonl, got ${kind}`)
const lister = process.argv[6] ?? 'cli'
if (lister !== 'cli' && lister !== 'host') throw new Error(`the lister must be cli or host, got ${lister}`)
// The host's old path reads each log with Store.read, which the SQLite store does not offer: its cold rows had no counts at all.
if (lister === 'host' && kind !== 'jsonl') throw new Error('the host lister compares with reading every log: use the jsonl store (SQLite has no read())')
const dir = await mkdtemp(join(tmpdir(), 'bosun-list-bench-'))
const file = join(dir, 'sessions.sqlite')
const makeStore = () => (kind === 'sqlite' ? sqliteStore({ file }) : jsonlStore({ dir: join(dir, 'sessions') }))

/** A log of about `length` events shaped like an agent's: each turn ~30 events. */
function log(length) {
  const events = []
  const push = (type, data) => events.push(Object.freeze({ seq: events.length, time: 1_700_000_000_000 + events.length, type, data }))
  let turn = 0
  let ids = 0
  while (events.length < length) {
    turn++
    push('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage(`prompt ${turn}`, { id: `m${ids++}` })] })
    push('turn/start', { turn })
    push('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
    push('user/message', createUserMessage(`prompt ${turn}`, { id: `u${ids++}` }))
    push('step/start', { turn, step: 1 })
    for (let i = 0; i < 24; i++) push('assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', text: `word ${i} ` } })
    push('tool/call', { turn, step: 1, callId: `c${turn}`, name: 'read', arguments: '{"path":"a.txt"}' })
    push('tool/result', { turn, step: 1, callId: `c${turn}`, name: 'read', content: [{ type: 'text', text: 'contents' }] })
    push('step/end', { turn, step: 1, finish: { reason: 'stop' } })
    push('turn/end', { turn, reason: { kind: 'completed' } })
  }
  return events.slice(0, length)
}

const build = makeStore()
const seed = log(length)
for (let s = 0; s < sessions; s++) {
  const created = await build.create({ id: `s${s}`, version: 1, createdAt: 1_700_000_000_000 + s }, seed)
  await created.writer.close()
}
await build.close()

/** The store's list without the summary fields: the CLI falls back to reading each log (the old path). */
const withoutSummaries = (store) => ({
  ...store,
  name: store.name,
  list: async () => (await store.list()).map(({ id, createdAt, parent, length }) => ({ id, createdAt, ...(parent === undefined ? {} : { parent }), length })),
  has: (id) => store.has(id),
  header: (id) => store.header(id),
  open: (id) => store.open(id),
  ...(store.read ? { read: (id) => store.read(id) } : {}),
  close: () => store.close(),
})

/** One listing, timed: the CLI's rows, or the host's `GET /v1/sessions` (its JSON parsed). */
async function timed(store) {
  if (lister === 'cli') {
    const reader = storeReader(store)
    const start = process.hrtime.bigint()
    const listed = await listSessions(reader, (id, error) => { throw new Error(`${id}: ${error}`) })
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    await reader.close()
    if (listed.length !== sessions || listed[0].events !== length) throw new Error('wrong list')
    return ms
  }
  const host = createHost({ store, agent: { model: scripted() } })
  const start = process.hrtime.bigint()
  const { sessions: rows } = await (await host.fetch(new Request('http://127.0.0.1/v1/sessions'))).json()
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  await host.close()
  await store.close()
  if (rows.length !== sessions || rows[0].lastSeq !== length - 1 || rows[0].queue === null) throw new Error(`wrong list: ${JSON.stringify(rows[0])}`)
  return ms
}

const times = { full: [], summary: [] }
const loads = [loadavg()[0]]
for (let round = 0; round < rounds; round++) {
  for (const mode of round % 2 === 0 ? ['full', 'summary'] : ['summary', 'full']) {
    const store = makeStore()
    const ms = await timed(mode === 'full' ? withoutSummaries(store) : store)
    times[mode].push(ms)
    loads.push(loadavg()[0])
    console.log(JSON.stringify({ round, mode, ms: Math.round(ms * 10) / 10 }))
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const spread = (xs) => [Math.min(...xs), Math.max(...xs)].map((x) => Math.round(x * 10) / 10)
console.log(JSON.stringify({ store: kind, lister, sessions, events: length, rounds, load1: spread(loads), fullMedianMs: Math.round(median(times.full)), fullRange: spread(times.full), summaryMedianMs: Math.round(median(times.summary) * 10) / 10, summaryRange: spread(times.summary) }))
await rm(dir, { recursive: true, force: true })
