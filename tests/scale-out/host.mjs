// One host of the scale-out campaign, in its own process, from the built packages: a cluster host
// on the PostgreSQL store (PG_URL, SCHEMA) whose sessions answer every message with a slow scripted
// stream (a turn lasts long enough to be killed in the middle). Prints `listening <url>` when ready.
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { createHost, listen } from '@bosun/host'
import { postgresStore } from '@bosun/plugin-store-postgres'

const env = (name) => {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} must be set`)
  return value
}
const store = postgresStore({ url: env('PG_URL'), schema: env('SCHEMA'), owner: env('OWNER'), leaseTtlMs: Number(env('LEASE_TTL_MS')), poolSize: 6 })
const delayMs = Number(process.env.CHUNK_DELAY_MS ?? 20)
const host = createHost({
  store,
  // Every turn streams 40 chunks, `delayMs` apart: long enough to be killed in the middle (the echo
  // after the script would be instant).
  agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 50 }, () => ({ text: 'word '.repeat(40), chunkSize: 5, delayMs })) }), store, sessionId }),
  cluster: { relayWaitMs: Number(process.env.RELAY_WAIT_MS ?? 10_000), pollIntervalMs: Number(process.env.POLL_MS ?? 250), takeoverConcurrency: Number(process.env.TAKEOVER_CONCURRENCY ?? 8) },
  limits: { keepAliveMs: 1000 },
})
const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
process.stdout.write(`listening ${server.url}\n`)
const stop = async () => {
  await server.close({ graceMs: 0 })
  await store.close()
  process.exit(0)
}
process.once('SIGTERM', () => void stop())
