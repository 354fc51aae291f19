#!/usr/bin/env node
/**
 * `GET /v1/sessions/:id/events` (a page of 100 events from the middle and from the end) and
 * `GET /v1/sessions/:id` of a session not loaded, on a host over the JSONL store (the default):
 * a session of `turns` × 8 events (tests/web/big-session-events.mjs) created in a temporary folder.
 * Two hosts over the folder, each with its own store: `tail` reads with the store's `summary(id)`
 * and `readEvents`, and `whole` has `summary` taken off its store, so it takes the path from before
 * those existed: `read()` of the whole file. The two alternate each round, and the order alternates.
 * A side measurement that is never asserted.
 *
 *   node packages/host/bench/jsonl-events-page.mjs [rounds=5] [turns=12500]
 */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost } from '../dist/index.js'
import { bigSessionEvents } from '../../../tests/web/big-session-events.mjs'
import { spread } from './seal-bench.mjs'

const rounds = Number(process.argv[2] ?? 5)
const turns = Number(process.argv[3] ?? 12_500)
const id = 'big'
const dir = await mkdtemp(join(tmpdir(), 'bosun-bench-'))
const events = bigSessionEvents(turns)
const writer = jsonlStore({ dir })
await (await writer.create({ id, version: 1, createdAt: Date.now() - turns * 1000 }, events)).writer.close()
await writer.close()
const size = (await stat(join(dir, `${id}.jsonl`))).size

const hostOn = (whole) => {
  const store = jsonlStore({ dir })
  if (whole) store.summary = undefined
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }) })
  return { store, host }
}
const ways = { tail: hostOn(false), whole: hostOn(true) }

async function timed(host, path) {
  const started = performance.now()
  const response = await host.fetch(new Request(`http://127.0.0.1${path}`))
  const body = await response.json()
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`)
  return { ms: performance.now() - started, body }
}

const middle = Math.floor(events.length / 2)
const requests = {
  middle: `/v1/sessions/${id}/events?after=${middle}&limit=100`,
  end: `/v1/sessions/${id}/events?after=${events.length - 101}&limit=100`,
  state: `/v1/sessions/${id}`,
}
const rows = { tail: [], whole: [] }
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['tail', 'whole'] : ['whole', 'tail']
  const answers = {}
  for (const way of order) {
    const row = {}
    for (const [name, path] of Object.entries(requests)) {
      const { ms, body } = await timed(ways[way].host, path)
      row[name] = ms
      answers[`${way} ${name}`] = JSON.stringify(body)
    }
    rows[way].push(row)
    console.log(`round ${r + 1}, ${way} (load ${loadavg()[0].toFixed(1)}): page in the middle ${row.middle.toFixed(1)} ms, at the end ${row.end.toFixed(1)} ms, session state ${row.state.toFixed(1)} ms`)
  }
  for (const name of Object.keys(requests)) if (answers[`tail ${name}`] !== answers[`whole ${name}`]) throw new Error(`${name}: the two hosts answered differently`)
}
for (const way of ['tail', 'whole']) {
  const r = rows[way]
  console.log(`${way}: median (min–max) over ${rounds} rounds, ${events.length}-event log of ${(size / 1e6).toFixed(1)} MB: page of 100 in the middle ${spread(r, (x) => x.middle)}, at the end ${spread(r, (x) => x.end)}; GET /v1/sessions/:id ${spread(r, (x) => x.state)}`)
}
for (const { host, store } of Object.values(ways)) {
  await host.close()
  await store.close()
}
await rm(dir, { recursive: true, force: true })
