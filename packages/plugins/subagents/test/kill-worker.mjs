// A parent with the subagents plugin on a real store, run as a child process and killed with
// SIGKILL at one chosen write. It imports the BUILT packages (dist/), like an installed
// application would.
//
//   node kill-worker.mjs <jsonl|sqlite> <location> <window> <script JSON> <prompts JSON>
//
// Windows: `create` — a child's session is about to be created; `admit` — a child's task is
// about to be admitted; `result` — a `spawn_agent` tool result is about to be logged in the
// parent (everything before it made durable first). At the window the write is held, `AT <window>`
// is printed, and the process waits to be killed.
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import subagents from '../dist/index.js'

const [kind, location, window, scriptJson, promptsJson] = process.argv.slice(2)
const script = JSON.parse(scriptJson)
const prompts = JSON.parse(promptsJson)
const inner = kind === 'jsonl' ? jsonlStore({ dir: location }) : sqliteStore({ file: location })

const never = () => new Promise(() => {})
let held = false
/** Holds the window's write: nothing after it is written, and the test kills the process. */
async function hold(flush) {
  held = true
  if (flush) await flush()
  process.stdout.write(`AT ${window}\n`)
  return never()
}

const wrap = (stored) => {
  const id = stored.header.id
  const writer = {
    append(event) {
      if (held) return
      if (window === 'admit' && id !== 'root' && event.type === 'agent/inbox/spliced') return void hold()
      if (window === 'result' && id === 'root' && event.type === 'tool/result' && event.data.name === 'spawn_agent') {
        return void hold(() => stored.writer.flush())
      }
      stored.writer.append(event)
    },
    flush: () => (held ? never() : stored.writer.flush()),
    close: () => (held ? never() : stored.writer.close()),
  }
  return { ...stored, writer }
}
const store = {
  ...inner,
  name: inner.name,
  read: inner.read?.bind(inner),
  list: () => inner.list(),
  close: () => inner.close(),
  async create(header, seed) {
    if (window === 'create' && header.id !== 'root') return hold()
    return wrap(await inner.create(header, seed))
  },
  async open(id) {
    const stored = await inner.open(id)
    return stored && wrap(stored)
  },
}

// Each conversation is scripted by its first user message; a function entry is not JSON, so a
// `{ ifLast, then, else }` entry picks by the last user message instead.
const text = (message) => message.content.map((block) => block.text ?? '').join('')
const route = (request) => {
  const users = request.messages.filter((m) => m.role === 'user')
  const key = users[0] ? text(users[0]) : ''
  const entry = script[key]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: `done: ${key}` }
  if (entry.ifLast === undefined) return entry
  return users.length > 0 && text(users.at(-1)) === entry.ifLast ? entry.then : entry.else
}
const root = await createAgent({
  model: scripted({ responses: Array.from({ length: 500 }, () => route) }), store, sessionId: 'root', plugins: [[subagents, {}]],
})
for (const prompt of prompts) {
  root.followup(prompt)
  await root.whenIdle()
}
process.stdout.write('FINISHED without reaching the window\n')
