#!/usr/bin/env node
/**
 * A `POST /v1/ai-sdk/chat` to a long live session after the core's idle seal (docs/host.md, "AI
 * SDK useChat"): the 50,000-event session of reconnect-after-seal.mjs in a memory store, opened
 * live by a first chat POST, sealed by `sealIdleSessions()`, then a second chat POST is timed to
 * its first part (`start`): its wall time, the process's CPU meanwhile and the event loop's longest
 * gap meanwhile (a setImmediate ticker). Builds as in reconnect-after-seal.mjs (`dist` folders
 * beside packages/host/dist), alternated each round. A side measurement, never asserted.
 *
 *   node packages/host/bench/chat-after-seal.mjs [rounds=5] [hostDist=packages/host/dist ...]
 */
import { createAgent, memoryStore, sealIdleSessions } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { alternate, bigEvents, buildsFromArgs, ms, spread, watchEventLoop } from './seal-bench.mjs'

const { rounds, builds } = await buildsFromArgs()
const id = 'big'
const events = bigEvents()

/** A chat POST, read until its `start` part (wall time, CPU, longest event-loop gap meanwhile), then to its end. */
async function chat(host, messageId) {
  const watch = watchEventLoop()
  const body = JSON.stringify({ id, messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text: 'hello' }] }] })
  const response = await host.fetch(new Request('http://127.0.0.1/v1/ai-sdk/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let measured
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    if (measured === undefined && text.includes('"type":"start"')) measured = await watch.stop()
  }
  if (measured === undefined || !text.endsWith('data: [DONE]\n\n')) throw new Error(`the stream ended without its start or [DONE]: ${text.slice(-200)}`)
  return { start: measured.wall, cpu: measured.cpu, longest: measured.longest }
}

async function round(createHost) {
  const store = memoryStore()
  await (await store.create({ id, version: 1, createdAt: Date.now() }, events)).writer.close()
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'one' }, { text: 'two' }] }), store, sessionId }) })
  const first = await chat(host, 'bench-1')
  const sealed = await sealIdleSessions()
  if (sealed === 0) throw new Error('nothing was sealed')
  const afterSeal = await chat(host, 'bench-2')
  await host.close()
  return { first, afterSeal }
}

await alternate(rounds, builds, round, (row) => `first chat start ${ms(row.first.start)}; after the seal start ${ms(row.afterSeal.start)}, CPU ${ms(row.afterSeal.cpu)}, longest event-loop gap ${ms(row.afterSeal.longest)}`)
for (const { dist, rows } of builds) {
  console.log(`${dist}: median (min–max) over ${rounds} rounds, ${events.length} events: first chat start ${spread(rows, (r) => r.first.start)}; after the seal: start ${spread(rows, (r) => r.afterSeal.start)}, CPU ${spread(rows, (r) => r.afterSeal.cpu)}, longest event-loop gap ${spread(rows, (r) => r.afterSeal.longest)}`)
}
