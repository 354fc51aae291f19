// Bosun: `createAgent` from @bosun/core (built dist), a minimal inline ModelAdapter that yields
// prepared chunks (the same chunks `scripted()` would produce, without its per-call option
// validation and string splitting), and the memory, JSONL or SQLite store. The caller receives
// text deltas the way Bosun's users do: a session observer on `assistant/chunk` events.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { storedLog } from '../lib/stored-log.mjs'
import { TOOL_ARGS_JSON, TOOL_DESCRIPTION, TOOL_NAME, answerDeltas, pacer, toolResult } from '../lib/conversation.mjs'

// BENCH_CORE: another build of @bosun/core (ab-core.mjs: the core of a git ref, built elsewhere).
const core = await import(process.env.BENCH_CORE || '@bosun/core')
const { createAgent, memoryStore } = core

const tools = [{
  name: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  execute: ({ key }) => toolResult(key),
}]

async function* play(chunks) {
  for (const chunk of chunks) yield chunk
}

/** The answer with a wait before each text delta (figure 3b). */
async function* playPaced(chunks, wait) {
  for (const chunk of chunks) {
    if (chunk.type === 'text-delta') await wait()
    yield chunk
  }
}

function model({ chunks, chunkSize, pace }) {
  const text = [...answerDeltas(chunks, chunkSize).map((t) => ({ type: 'text-delta', text: t })), { type: 'finish', reason: 'stop' }]
  const wait = pacer(pace)
  let calls = 0
  return {
    name: 'bench',
    stream(request) {
      const last = request.messages[request.messages.length - 1]
      if (last?.role === 'tool') return wait ? playPaced(text, wait) : play(text)
      const id = `call_${++calls}`
      return play([
        { type: 'tool-call-delta', index: 0, id, name: TOOL_NAME },
        { type: 'tool-call-delta', index: 0, argumentsDelta: TOOL_ARGS_JSON },
        { type: 'finish', reason: 'tool-calls' },
      ])
    },
  }
}

export async function contender(variant, options) {
  if (variant === 'jsonl-tmpfs' && !existsSync('/dev/shm')) throw new Error('no /dev/shm (tmpfs) on this machine')
  const dir = variant === 'memory' ? undefined : mkdtempSync(join(variant === 'jsonl-tmpfs' ? '/dev/shm' : tmpdir(), 'bosun-bench-'))
  let storeFactory
  let sqliteFiles = []
  if (variant === 'memory') storeFactory = () => memoryStore()
  else if (variant === 'jsonl' || variant === 'jsonl-tmpfs') {
    // BENCH_STORE_JSONL / BENCH_STORE_SQLITE: another build of the store (ab-stores.mjs).
    const { jsonlStore } = await import(process.env.BENCH_STORE_JSONL ?? '@bosun/plugin-store-jsonl')
    storeFactory = () => jsonlStore({ dir, batchWindowMs: 0 })
  } else if (variant === 'sqlite') {
    const { sqliteStore } = await import(process.env.BENCH_STORE_SQLITE ?? '@bosun/plugin-store-sqlite')
    let n = 0
    let dbs = 0
    storeFactory = () => { const file = join(dir, `s${dbs++}.db`); sqliteFiles = [file, `${file}-wal`]; return sqliteStore({ file, batchWindowMs: 0 }) }
  } else throw new Error(`unknown bosun variant ${variant}`)

  // The prior history: real turns on a memory-store agent, kept as its log.
  const seedModel = model(options)
  const seed = await createAgent({ model: seedModel, tools })
  for (let i = 0; countMessages(seed) < options.prior; i++) {
    seed.followup(`question ${i}`)
    await seed.whenIdle()
  }
  const log = [...seed.session.events]
  const priorMessages = countMessages(seed)
  await seed.close()

  let n = 0
  let shared
  const logJson = JSON.stringify(log)
  return {
    priorMessages,
    logEvents: log.length,
    log, // figure 5: the seed log, written to a store by resume-child.mjs
    // Figure 6: one idle session as a Bosun user holds it — an agent (its own memory store,
    // model adapter instance and session) loaded from its own copy of the history, decoded as
    // the JSONL store reads it from disk (lib/stored-log.mjs), optionally after one real turn. Returned so the caller keeps it alive.
    async idle(runTurn) {
      const store = memoryStore()
      const id = `idle-${n++}`
      await (await store.create({ id, version: 1, createdAt: 0 }, storedLog(logJson, core))).writer.close()
      const agent = await createAgent({ model: model(options), store, sessionId: id, tools, ownsStore: true })
      if (runTurn) {
        agent.followup('hello')
        await agent.whenIdle()
      }
      return agent
    },
    async fresh() {
      // `sharedStore`: every session of this contender in ONE store (one SQLite database, one
      // JSONL folder), as a server running many agents has it; otherwise a store per session.
      const store = options.sharedStore ? (shared ??= storeFactory()) : storeFactory()
      const id = `bench-${n++}`
      // Figure 4: the files this session's durable writes land in (size growth per step).
      const files = variant.startsWith('jsonl') ? [join(dir, `${id}.jsonl`)] : sqliteFiles
      // The seeded session is written, then closed: the agent opens it as its one writer.
      await (await store.create({ id, version: 1, createdAt: 0 }, log)).writer.close()
      const agent = await createAgent({ model: model(options), store, sessionId: id, tools, ownsStore: !options.sharedStore })
      let deltas = 0
      agent.session.subscribe((event) => {
        if (event.type === 'assistant/chunk' && event.data.chunk.type === 'text-delta') deltas++
      })
      return {
        async turn(text) {
          deltas = 0
          agent.followup(text)
          await agent.whenIdle()
          return deltas
        },
        close: () => agent.close(),
        files,
      }
    },
    async cleanup() {
      await shared?.close()
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}

function countMessages(agent) {
  return agent.surface.messages?.length ?? agent.surface.length
}
