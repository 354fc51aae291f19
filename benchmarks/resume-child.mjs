// Figure 5 (resume), one contender in its own process: `node resume-child.mjs '<json>'` with
// { contender, variant, events, reps }. Builds (untimed) a stored session of about `events`
// Bosun log events from real turns of the scripted conversation (29 events / 4 messages per
// turn), then times reopening it `reps` times (median reported). Bosun JSONL: `store.open(id)`
// alone, `createAgent({ store, sessionId })` (open + core rebuild), and a plain readFile + split +
// JSON.parse of each line of the same file. LangGraph: a thread holding the same number of
// messages (turns × 4), written once into a `SqliteSaver` db with `graph.updateState` as the
// agent node; reopen = new `SqliteSaver` on the file + `graph.getState(thread)`. The files are
// in the page cache (just written): warm reopen, not cold disk reads.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

const config = JSON.parse(process.argv[2])
const EVENTS_PER_TURN = 29
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2 }
async function time(reps, fn) {
  const ms = []
  let out
  for (let i = 0; i < reps; i++) { const t0 = performance.now(); out = await fn(); ms.push(performance.now() - t0) }
  return { ms: median(ms), out }
}

async function bosunJsonl(dir) {
  const { createAgent } = await import('@bosun/core')
  const { jsonlStore } = await import('@bosun/plugin-store-jsonl')
  const { contender } = await import('./contenders/bosun.mjs')
  // The contender's seed: `prior` messages of real turns on a memory store (its log).
  const turns = Math.max(1, Math.round(config.events / EVENTS_PER_TURN))
  const c = await contender('memory', { prior: turns * 4, chunks: 10, chunkSize: 10 })
  const log = c.log
  const store = jsonlStore({ dir })
  const stored = await store.create({ id: 'big', version: 1, createdAt: 0 }, log)
  await stored.writer.close()
  const file = join(dir, 'big.jsonl')
  const model = { name: 'resume', stream() { throw new Error('no model call on resume') } }
  const plain = await time(config.reps, async () => {
    const lines = (await readFile(file, 'utf8')).split('\n'); lines.pop()
    const events = new Array(lines.length - 1)
    for (let i = 1; i < lines.length; i++) events[i - 1] = JSON.parse(lines[i])
    return events.length
  })
  const open = await time(config.reps, async () => { const s = await store.open('big'); const n = s.events.length; await s.writer.close(); return n })
  const agent = await time(config.reps, async () => { const a = await createAgent({ model, store, sessionId: 'big' }); const n = a.session.length; await a.close(); return n })
  return { events: open.out, messages: turns * 4, bytes: statSync(file).size, plainMs: plain.ms, openMs: open.ms, createAgentMs: agent.ms }
}

async function langgraphSqlite(dir) {
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite')
  const { createReactAgent } = await import('@langchain/langgraph/prebuilt')
  const { HumanMessage, AIMessage, ToolMessage } = await import('@langchain/core/messages')
  const { BenchChatModel, lookup } = await import('./contenders/langgraph.mjs')
  const { answerDeltas, TOOL_NAME, toolResult } = await import('./lib/conversation.mjs')
  const deltas = answerDeltas(10, 10)
  const turns = Math.max(1, Math.round(config.events / EVENTS_PER_TURN))
  const messages = []
  for (let i = 0; i < turns; i++) {
    const id = `h_${i}`
    messages.push(
      new HumanMessage({ content: `question ${i}`, id: `${id}_u` }),
      new AIMessage({ content: '', id: `${id}_a1`, tool_calls: [{ type: 'tool_call', name: TOOL_NAME, args: { key: 'k' }, id }] }),
      new ToolMessage({ content: toolResult('k'), tool_call_id: id, name: TOOL_NAME, id: `${id}_t` }),
      new AIMessage({ content: deltas.join(''), id: `${id}_a2` }),
    )
  }
  const file = join(dir, 'lg.db')
  const thread = { configurable: { thread_id: 'big' } }
  {
    const saver = SqliteSaver.fromConnString(file)
    const graph = createReactAgent({ llm: new BenchChatModel(deltas), tools: [lookup], checkpointer: saver })
    await graph.updateState(thread, { messages }, 'agent')
    saver.db.close()
  }
  const reopen = await time(config.reps, async () => {
    const saver = SqliteSaver.fromConnString(file)
    const graph = createReactAgent({ llm: new BenchChatModel(deltas), tools: [lookup], checkpointer: saver })
    const state = await graph.getState(thread)
    const n = state.values.messages.length
    saver.db.close()
    return n
  })
  const size = (f) => { try { return statSync(f).size } catch { return 0 } }
  if (reopen.out !== messages.length) throw new Error(`getState returned ${reopen.out} messages, expected ${messages.length}`)
  return { messages: reopen.out, bytes: size(file) + size(`${file}-wal`), getStateMs: reopen.ms }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'resume-bench-'))
  try {
    if (config.contender === 'bosun' && config.variant === 'jsonl') return { ok: true, ...(await bosunJsonl(dir)) }
    if (config.contender === 'langgraph' && config.variant === 'sqlite') return { ok: true, ...(await langgraphSqlite(dir)) }
    throw new Error(`no resume measurement for ${config.contender} ${config.variant}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

main().then(
  (result) => { process.stdout.write(JSON.stringify(result) + '\n'); process.exit(0) },
  (error) => { process.stdout.write(JSON.stringify({ ok: false, reason: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }) + '\n'); process.exit(0) },
)
