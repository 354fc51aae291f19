#!/usr/bin/env node
/**
 * A `POST /v1/ai-sdk/chat` and a `GET /v1/sessions/:id/events` page on a host that does not own
 * the session (docs/scale-out.md, "What a host reads"): two hosts on one PostgreSQL (a throwaway
 * cluster from @bosun/testkit, or BOSUN_PG_URL), a session of `turns` × 8 events created in the
 * store (tests/web/big-session-events.mjs) and opened by host A; host B answers, once reading the
 * log's tail (`tail`: the store's `summary` and `readEvents`) and once with `summary` taken off its
 * store (`whole`: the path before, `read` of the whole log and a fold from seq 0), alternating
 * each round, the order alternating. Times a chat POST to its `start` part and to its end, and a
 * page of 100 events; counts the events B's store returned. A side measurement, never asserted.
 *
 *   node packages/host/bench/cluster-chat-tail.mjs [rounds=5] [turns=2500]
 */
import { loadavg } from 'node:os'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { postgresStore } from '@bosun/plugin-store-postgres'
import { startPostgres } from '@bosun/testkit'
import { createHost } from '../dist/index.js'
import { bigSessionEvents } from '../../../tests/web/big-session-events.mjs'
import { spread } from './seal-bench.mjs'

const rounds = Number(process.argv[2] ?? 5)
const turns = Number(process.argv[3] ?? 2500)
const id = 'big'
const server = await startPostgres()
const schema = `bench_${process.pid}`
const hostOn = (owner) => {
  const store = postgresStore({ url: server.url, schema, owner, poolSize: 4, leaseTtlMs: 600_000 })
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }), cluster: { relayWaitMs: 60_000, pollIntervalMs: 200 } })
  return { store, host }
}

const a = hostOn('host-a')
const b = hostOn('host-b')
const events = bigSessionEvents(turns)
await (await a.store.create({ id, version: 1, createdAt: Date.now() - turns * 1000 }, events)).writer.close()
await a.host.sessions.use(id)

// What B's store returns, per request.
const counted = { events: 0 }
const read = b.store.read.bind(b.store)
const readEvents = b.store.readEvents.bind(b.store)
const summary = b.store.summary.bind(b.store)
b.store.read = async (sessionId) => {
  const found = await read(sessionId)
  counted.events += found?.events.length ?? 0
  return found
}
b.store.readEvents = async (...args) => {
  const found = await readEvents(...args)
  counted.events += found.length
  return found
}

let n = 0
async function chat() {
  const body = JSON.stringify({ id, messages: [{ id: `bench-${++n}`, role: 'user', parts: [{ type: 'text', text: 'hello' }] }] })
  const started = performance.now()
  const response = await b.host.fetch(new Request('http://127.0.0.1/v1/ai-sdk/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let start
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    if (start === undefined && text.includes('"type":"start"')) start = performance.now() - started
  }
  if (start === undefined || !text.endsWith('data: [DONE]\n\n')) throw new Error(`the stream ended without its start or [DONE]: ${text.slice(-200)}`)
  return { start, end: performance.now() - started }
}

async function page() {
  const started = performance.now()
  const response = await b.host.fetch(new Request(`http://127.0.0.1/v1/sessions/${id}/events?after=${events.length / 2}&limit=100`))
  if ((await response.json()).events.length !== 100) throw new Error('the page is not 100 events')
  return performance.now() - started
}

const ways = { tail: [], whole: [] }
for (let r = 0; r < rounds; r++) {
  for (const way of r % 2 === 0 ? ['tail', 'whole'] : ['whole', 'tail']) {
    b.store.summary = way === 'tail' ? summary : undefined
    counted.events = 0
    const posted = await chat()
    const chatEvents = counted.events
    counted.events = 0
    const paged = await page()
    const row = { ...posted, chatEvents, page: paged, pageEvents: counted.events }
    ways[way].push(row)
    console.log(`round ${r + 1}, ${way} (load ${loadavg()[0].toFixed(1)}): chat start ${row.start.toFixed(1)} ms, end ${row.end.toFixed(1)} ms, ${chatEvents} events read; page ${row.page.toFixed(1)} ms, ${row.pageEvents} events read`)
  }
}
for (const [way, rows] of Object.entries(ways)) {
  console.log(`${way}: median (min–max) over ${rounds} rounds, ${events.length}-event log: chat start ${spread(rows, (r) => r.start)}, end ${spread(rows, (r) => r.end)}, ${rows[0].chatEvents} events read; page of 100 ${spread(rows, (r) => r.page)}, ${rows[0].pageEvents} events read`)
}
await b.host.close()
await a.host.close()
await b.store.close()
await a.store.close()
await server.stop()
