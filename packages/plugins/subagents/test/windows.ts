// Two ways to cut a run at one chosen write and reopen it, for the crash-window scenarios: a
// simulated crash in this process (the crashable memory store), and a real process on a real
// store killed with SIGKILL at that write (kill-worker.mjs, which runs the built packages).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import type { ModelRequest, SessionEvent, SessionHeader, Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { crashableStore, type Write } from './crash.js'
import { eventsOf, parent, read, textOf, until, type Script } from './harness.js'

/** `create`: a child's session is being created; `admit`: its task is being admitted; `result`: a spawn_agent tool result is being logged. */
export type Window = 'create' | 'admit' | 'result'

/** A script in JSON (it crosses to the worker): an entry may pick by the conversation's last user message. */
export type JsonScript = Record<string, (ScriptedResponse | { ifLast: string; then: ScriptedResponse; else: ScriptedResponse })[]>

export interface Crashed {
  /** The parent, reopened after the crash (its plugin's recovery has run). */
  root: Awaited<ReturnType<typeof parent>>
  /** Opens the parent again (close the previous one first). */
  reopen(): Promise<Awaited<ReturnType<typeof parent>>>
  events(id: string): Promise<readonly SessionEvent[]>
  header(id: string): Promise<SessionHeader>
  cleanup(): Promise<void>
}

export type CrashRunner = (script: JsonScript, prompts: string[], window: Window) => Promise<Crashed>

const lastUser = (request: ModelRequest) => {
  const last = request.messages.filter((m) => m.role === 'user').at(-1)
  return last && last.role === 'user' ? textOf(last.content as never) : ''
}

/** The harness's form of a JSON script. */
function toScript(script: JsonScript): Script {
  return Object.fromEntries(Object.entries(script).map(([key, entries]) => [
    key,
    entries.map((entry) => ('ifLast' in entry ? (request: ModelRequest) => (lastUser(request) === entry.ifLast ? entry.then : entry.else) : entry)),
  ]))
}

const AT: Record<Window, (write: Write) => boolean> = {
  create: (write) => write.kind === 'create' && write.sessionId !== 'root',
  admit: (write) => write.kind === 'append' && write.sessionId !== 'root' && write.event.type === 'agent/inbox/spliced',
  result: (write) => write.kind === 'append' && write.sessionId === 'root' && write.event.type === 'tool/result' && (write.event.data as { name: string }).name === 'spawn_agent',
}

/** In this process: the memory store "crashes" at the window's write; the run is abandoned as a killed process would be. */
export const simulatedCrash: CrashRunner = async (json, prompts, window) => {
  const script = toScript(json)
  const crashable = crashableStore()
  const dying = await parent({ store: crashable.store(), script })
  for (const prompt of prompts.slice(0, -1)) {
    dying.followup(prompt)
    await dying.whenIdle()
  }
  crashable.crashWhen(AT[window])
  dying.followup(prompts.at(-1)!)
  await until(() => crashable.crashed, 'the crash')
  const reopen = () => parent({ store: crashable.store(), script })
  return {
    root: await reopen(), reopen,
    events: (id) => eventsOf(crashable.inner, id),
    header: async (id) => (await read(crashable.inner, id)).header,
    cleanup: async () => {},
  }
}

const worker = fileURLToPath(new URL('./kill-worker.mjs', import.meta.url))
const built = fileURLToPath(new URL('../dist/index.js', import.meta.url))

/** A real process on a real store, killed with SIGKILL while it holds the window's write; reopened here. */
export function killedProcess(kind: 'jsonl' | 'sqlite'): CrashRunner {
  return async (json, prompts, window) => {
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`npx tsc -b tsconfig.build.json\` first (the worker runs the built plugin).`)
    const dir = await mkdtemp(join(tmpdir(), 'bosun-subagents-kill-'))
    const location = kind === 'jsonl' ? dir : join(dir, 'sessions.db')
    const child = spawn(process.execPath, [worker, kind, location, window, JSON.stringify(json), JSON.stringify(prompts)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes(`AT ${window}\n`)) resolve()
      })
      void exited.then(() => reject(new Error(`the worker ended before the window: ${out}${err}`)))
    })
    child.kill('SIGKILL')
    await exited
    const store: Store = kind === 'jsonl' ? jsonlStore({ dir: location }) : sqliteStore({ file: location })
    const reopen = () => parent({ store, script: toScript(json) })
    return {
      root: await reopen(), reopen,
      events: (id) => eventsOf(store, id),
      header: async (id) => (await read(store, id)).header,
      cleanup: async () => {
        await store.close()
        await rm(dir, { recursive: true, force: true })
      },
    }
  }
}
