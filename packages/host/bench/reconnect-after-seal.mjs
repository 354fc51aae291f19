#!/usr/bin/env node
/**
 * A reconnect at the end of a long live session after the core's idle seal (docs/host.md, the
 * `hello`'s `prefix`): a 6,250-turn session (50,000 events, tests/web/big-session-events.mjs) in a
 * memory store, opened live by a host; a first stream at the last seq hashes the log once, then
 * `sealIdleSessions()` seals it into pages and a second stream at the last seq is timed: its
 * hello's wall time, the process's CPU meanwhile and the event loop's longest gap meanwhile (a
 * setImmediate ticker). Given several builds of the host (their `dist` folders, which must resolve
 * `@bosun/core` to this checkout's, so that the seal reaches their sessions: put them beside
 * packages/host/dist), each round runs them all, the order alternating. Wall time and CPU, a side
 * measurement for docs/host.md, never asserted.
 *
 *   node packages/host/bench/reconnect-after-seal.mjs [rounds=5] [hostDist=packages/host/dist ...]
 */
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createAgent, memoryStore, sealIdleSessions } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { bigSessionEvents } from '../../../tests/web/big-session-events.mjs'

const rounds = Number(process.argv[2] ?? 5)
const dists = process.argv.length > 3 ? process.argv.slice(3) : ['packages/host/dist']
const builds = []
for (const dist of dists) builds.push({ dist, createHost: (await import(pathToFileURL(join(resolve(dist), 'index.js')).href)).createHost, rows: [] })

const id = 'big'
const events = bigSessionEvents(6_250)
const last = events.length - 1

/** Streams from the last seq until the hello; its wall time, CPU and the event loop's longest gap meanwhile. */
async function reconnect(host) {
  let longest = 0
  let tick = performance.now()
  let ticking = true
  const ticker = () => {
    const now = performance.now()
    longest = Math.max(longest, now - tick)
    tick = now
    if (ticking) setImmediate(ticker)
  }
  setImmediate(ticker)
  const cpu = process.cpuUsage()
  const started = performance.now()
  const response = await host.fetch(new Request(`http://127.0.0.1/v1/sessions/${id}/stream?after=${last}`))
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!text.includes('event: hello')) {
    const { done, value } = await reader.read()
    if (done) throw new Error('the stream ended before its hello')
    text += decoder.decode(value, { stream: true })
  }
  const hello = performance.now() - started
  const used = process.cpuUsage(cpu)
  // One more tick, so that a gap still open at the hello (work that never yielded) is counted.
  await new Promise((resolve) => setImmediate(resolve))
  ticking = false
  await reader.cancel()
  return { hello, cpu: (used.user + used.system) / 1000, longest }
}

async function round(createHost) {
  const store = memoryStore()
  await (await store.create({ id, version: 1, createdAt: Date.now() }, events)).writer.close()
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }) })
  const first = await reconnect(host)
  const sealed = await sealIdleSessions()
  if (sealed === 0) throw new Error('nothing was sealed')
  const afterSeal = await reconnect(host)
  await host.close()
  return { first, afterSeal }
}

const f = (ms) => `${ms.toFixed(1)} ms`
for (let r = 0; r < rounds; r += 1) {
  for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
    const row = await round(build.createHost)
    build.rows.push(row)
    console.log(`round ${r + 1}, ${build.dist} (load ${loadavg()[0].toFixed(1)}): first reconnect hello ${f(row.first.hello)}; after the seal hello ${f(row.afterSeal.hello)}, CPU ${f(row.afterSeal.cpu)}, longest event-loop gap ${f(row.afterSeal.longest)}`)
  }
}
for (const { dist, rows } of builds) {
  const spread = (pick) => {
    const values = rows.map(pick).sort((a, b) => a - b)
    return `${values[Math.floor(values.length / 2)].toFixed(1)} ms (${values[0].toFixed(1)}–${values.at(-1).toFixed(1)})`
  }
  console.log(`${dist}: median (min–max) over ${rounds} rounds, ${events.length} events: first reconnect hello ${spread((r) => r.first.hello)}; after the seal: hello ${spread((r) => r.afterSeal.hello)}, CPU ${spread((r) => r.afterSeal.cpu)}, longest event-loop gap ${spread((r) => r.afterSeal.longest)}`)
}
