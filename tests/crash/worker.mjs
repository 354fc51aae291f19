// A workload for the crash campaign, run as a child process and killed with SIGKILL at a random
// moment. It imports the BUILT packages (dist/), like an installed application would.
//
//   node worker.mjs <jsonl|sqlite> <location> <sessionId> <seed> <run> [<cut>]
//
// After every send whose flush() resolved it prints `ACK <messageId>` on stdout: those messages
// were durably accepted and must survive the kill.
//
// With a <cut> (see tear.mjs) the store's first write is torn and the process killed from
// inside. The session was left as the previous kill left it, so that first write is recovery's
// batch: the worker flushes it before printing READY, and dies writing it (`TORN` before READY).
// With nothing to repair it goes on, and dies writing its first workload batch instead.
import { createAgent, createUserMessage, definePlugin, messageText } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore, nodeFileSystem } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { killInsideFirstCommit, tearingFileSystem } from './tear.mjs'

const [kind, location, sessionId, seedText, run, cut] = process.argv.slice(2)
let seed = Number(seedText) >>> 0
/** mulberry32: a small seeded PRNG, so a failing run can be replayed from its seed. */
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = (n) => Math.floor(random() * n)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

if (cut !== undefined && kind === 'sqlite') killInsideFirstCommit(Number(cut.split(':')[1]) % 4)
const store = kind === 'jsonl'
  ? jsonlStore({ dir: location, batchWindowMs: 2, ...(cut === undefined ? {} : { fs: tearingFileSystem(nodeFileSystem, cut) }) })
  : sqliteStore({ file: location, batchWindowMs: 2 })

const tools = [
  {
    name: 'work',
    description: 'Does some work.',
    parameters: { type: 'object', properties: { ms: { type: 'integer' } } },
    execute: async ({ ms = 0 }, { signal }) => {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, ms)
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
      })
      return { content: `worked ${ms}ms`, ...(random() < 0.2 ? { additionalContexts: [`context after ${ms}ms`] } : {}) }
    },
  },
  { name: 'exclusive', description: 'Runs alone.', parameters: { type: 'object' }, parallel: false, execute: async () => (await sleep(pick(4)), 'alone') },
]

const gatekeeper = definePlugin({
  name: 'gatekeeper',
  setup({ hooks }) {
    hooks.preStep.tapPromise('gatekeeper', async (decision, { signal }) => {
      await sleep(pick(3))
      if (signal.aborted) return decision
      if (decision.kind === 'enter' && decision.messages.some((m) => messageText(m).includes('forbidden'))) {
        return { kind: 'reject', metadata: { reason: 'forbidden word' } }
      }
      return decision
    })
  },
})

const respond = () => {
  const r = random()
  if (r < 0.35) return { toolCalls: Array.from({ length: 1 + pick(3) }, () => (random() < 0.8 ? { name: 'work', args: { ms: pick(8) } } : { name: 'exclusive', args: {} })) }
  if (r < 0.42) return { error: { status: 429, retryAfterMs: 5 } }
  if (r < 0.47) return { text: 'cut short', finish: 'max-tokens' }
  return { text: 'reply '.repeat(1 + pick(6)), chunkSize: 3, delayMs: pick(3) }
}
const model = scripted({ responses: Array.from({ length: 5000 }, () => respond) })

const agent = await createAgent({ model, store, sessionId, tools, plugins: [gatekeeper] })
if (cut !== undefined) await agent.session.flush() // recovery's batch, if any: torn here
process.stdout.write(`READY ${agent.session.length}\n`)

let n = 0
while (true) {
  const r = random()
  const text = `${run}-${n} ${random() < 0.1 ? 'forbidden' : 'fine'}`
  if (r < 0.8) {
    const message = createUserMessage(text, { id: `${run}-${n++}` })
    const kindOfSend = pick(10)
    if (kindOfSend < 6) agent.followup(message)
    else if (kindOfSend < 8) agent.steer(message)
    else agent.inject(message)
    agent.session.flush().then(() => process.stdout.write(`ACK ${message.id}\n`), () => {})
  } else if (r < 0.85) {
    agent.abort('campaign')
  } else if (r < 0.88) {
    agent.cancel({ keepInbox: random() < 0.5 })
  } else if (r < 0.95) {
    await agent.whenIdle()
  }
  await sleep(pick(6))
}
