#!/usr/bin/env node
/**
 * `GET /v1/sessions/:id/messages/:messageId` on a live 20,000-event session (2,500 completed
 * turns of tests/web/big-session-events.mjs in a memory store, opened live before timing): the
 * first request, its wall time and the process's CPU (for an indexed build, the one pass that
 * builds the session's index), then 200
 * requests for the first message (admitted at seq 0, claimed by turn 1) and 200 for the last,
 * each timed through `host.fetch` and summed up as the median per request. Builds as in
 * reconnect-after-seal.mjs (`dist` folders whose `index.js` exports `createHost`), alternated each
 * round. A side measurement, never asserted.
 *
 *   node packages/host/bench/message-status.mjs [rounds=5] [hostDist=packages/host/dist ...]
 */
import { createAgent, memoryStore } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { bigSessionEvents } from '../../../tests/web/big-session-events.mjs'
import { alternate, buildsFromArgs, ms, spread } from './seal-bench.mjs'

const { rounds, builds } = await buildsFromArgs()
const id = 'big'
const turns = 2_500
const events = bigSessionEvents(turns)
const REQUESTS = 200

async function get(host, messageId) {
  const started = performance.now()
  const response = await host.fetch(new Request(`http://127.0.0.1/v1/sessions/${id}/messages/${messageId}`))
  const body = await response.json()
  const wall = performance.now() - started
  if (body.state !== 'claimed' || body.turnEnd !== 'completed') throw new Error(`unexpected status of ${messageId}: ${JSON.stringify(body)}`)
  return wall
}

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
const us = (value) => `${(value * 1000).toFixed(0)} µs`
/** Median (min–max) over a build's rows, in µs. */
const spreadUs = (rows, pick) => {
  const values = rows.map(pick).sort((a, b) => a - b)
  return `${us(values[Math.floor(values.length / 2)])} (${us(values[0])}–${us(values.at(-1))})`
}

async function round(createHost) {
  const store = memoryStore()
  await (await store.create({ id, version: 1, createdAt: Date.now() }, events)).writer.close()
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }) })
  await host.sessions.use(id)
  const cpu = process.cpuUsage()
  const first = await get(host, 'm-1')
  const used = process.cpuUsage(cpu)
  const firstCpu = (used.user + used.system) / 1000
  const early = []
  const late = []
  for (let i = 0; i < REQUESTS; i++) {
    early.push(await get(host, 'm-1'))
    late.push(await get(host, `m-${turns}`))
  }
  await host.close()
  return { first, firstCpu, early: median(early), late: median(late) }
}

await alternate(rounds, builds, round, (row) => `first request ${ms(row.first)} (CPU ${ms(row.firstCpu)}); then per request: first message ${us(row.early)}, last message ${us(row.late)}`)
for (const { dist, rows } of builds) {
  console.log(`${dist}: median (min–max) over ${rounds} rounds, ${events.length} events: first request ${spread(rows, (r) => r.first)}, its CPU ${spread(rows, (r) => r.firstCpu)}; per request (median of ${REQUESTS}): first message ${spreadUs(rows, (r) => r.early)}, last message ${spreadUs(rows, (r) => r.late)}`)
}
