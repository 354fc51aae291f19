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
import { createAgent, memoryStore, sealIdleSessions } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { alternate, bigEvents, buildsFromArgs, ms, spread, watchEventLoop } from './seal-bench.mjs'

const { rounds, builds } = await buildsFromArgs()
const id = 'big'
const events = bigEvents()
const last = events.length - 1

/** Streams from the last seq until the hello; its wall time, CPU and the event loop's longest gap meanwhile. */
async function reconnect(host) {
  const watch = watchEventLoop()
  const response = await host.fetch(new Request(`http://127.0.0.1/v1/sessions/${id}/stream?after=${last}`))
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!text.includes('event: hello')) {
    const { done, value } = await reader.read()
    if (done) throw new Error('the stream ended before its hello')
    text += decoder.decode(value, { stream: true })
  }
  const { wall, cpu, longest } = await watch.stop()
  await reader.cancel()
  return { hello: wall, cpu, longest }
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

await alternate(rounds, builds, round, (row) => `first reconnect hello ${ms(row.first.hello)}; after the seal hello ${ms(row.afterSeal.hello)}, CPU ${ms(row.afterSeal.cpu)}, longest event-loop gap ${ms(row.afterSeal.longest)}`)
for (const { dist, rows } of builds) {
  console.log(`${dist}: median (min–max) over ${rounds} rounds, ${events.length} events: first reconnect hello ${spread(rows, (r) => r.first.hello)}; after the seal: hello ${spread(rows, (r) => r.afterSeal.hello)}, CPU ${spread(rows, (r) => r.afterSeal.cpu)}, longest event-loop gap ${spread(rows, (r) => r.afterSeal.longest)}`)
}
