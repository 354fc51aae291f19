import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import { test, vi } from 'vitest'
import type { SessionEvent } from '@bosun/core'

const here = dirname(fileURLToPath(import.meta.url))

/** The built `bosun` binary: the tests drive it as a user would, never the sources. */
export const BIN = resolve(here, '../dist/bin.js')

/** Fails with a clear message when the CLI is not built (the root `pnpm test` builds before vitest). */
export function requireBuild(): void {
  if (!existsSync(BIN)) {
    throw new Error(`${BIN} is missing: run \`pnpm build\` first (the CLI tests run the built binary, and do not build it themselves).`)
  }
}

/** The environment every spawned `bosun` gets: no colour decisions inherited from the test runner. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...extra }
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

/** A fresh folder outside the workspace (so nothing resolves from the repository's node_modules). */
export async function tempDir(prefix = 'bosun-cli-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

export interface Result {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface RunOptions {
  cwd: string
  env?: Record<string, string | undefined>
  /** Written to stdin, which is then closed (stdin is closed at once without it). */
  input?: string
  /** Leave stdin open after `input`: the test writes more to `child.stdin`, and ends it. */
  keepInputOpen?: boolean
  timeoutMs?: number
}

/**
 * How long a `bosun` process may take before a test gives up on it: a guard against a hang, far
 * above what any command needs, because the suite shares two cores with other work.
 */
export const PROCESS_TIMEOUT_MS = 60_000

// Every CLI test file imports this module: a test that runs a few real processes (or a pseudo-
// terminal) one after another gets room for them, where the workspace's 20 s default does not.
vi.setConfig({ testTimeout: 3 * PROCESS_TIMEOUT_MS })

/** Runs `node dist/bin.js ...args` to completion. */
export function bosun(args: string[], options: RunOptions): Promise<Result> {
  const child = start(args, options)
  return finished(child, options.timeoutMs ?? PROCESS_TIMEOUT_MS)
}

/** Processes `start` began, by the folder they run in. */
const started = new Map<ChildProcess, string>()

/** Kills every process `start` began in `cwd` that is still running: a failed test must not leave one behind. */
export function stopStarted(cwd: string): void {
  for (const [child, where] of started) {
    if (where !== cwd) continue
    child.kill('SIGKILL')
    started.delete(child)
  }
}

/**
 * `it` with a fresh temp folder per test (`{ dir }`), removed afterwards along with any process
 * still running in it — so tests can run concurrently (`describe.concurrent`).
 */
export const it = test.extend<{ dir: string }>({
  // eslint-disable-next-line no-empty-pattern
  dir: async ({}, use) => {
    const { dir, cleanup } = await tempDir()
    try {
      await use(dir)
    } finally {
      stopStarted(dir)
      await cleanup()
    }
  },
})

/** A running `bosun`: its output so far, and `done`, settled once it has exited and both pipes have ended. */
export type Started = ChildProcess & { output: { stdout: string; stderr: string }; done: Promise<Result> }

/**
 * Starts `bosun` without waiting, for tests that interact with it (signals, --follow). `output`
 * grows as the pipes deliver: stdout and stderr are separate pipes, so what one has shown says
 * nothing about the other — read a stream's final text from `finished()`, not mid-run.
 */
export function start(args: string[], options: RunOptions): Started {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] })
  started.set(child, options.cwd)
  const output = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output.stdout += text))
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output.stderr += text))
  // Listened to from the start, so that a process that ends before anyone awaits it is not missed.
  const ended = (stream: NodeJS.ReadableStream) => new Promise<void>((resolve) => stream.once('end', resolve).once('close', resolve))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  const done = Promise.all([exited, ended(child.stdout), ended(child.stderr)]).then(([{ code, signal }]) => {
    started.delete(child)
    return { code, signal, stdout: output.stdout, stderr: output.stderr }
  })
  done.catch(() => {}) // a test that never awaits `done` must not see an unhandled rejection
  if (options.keepInputOpen === true) child.stdin.write(options.input ?? '')
  else child.stdin.end(options.input ?? '')
  return Object.assign(child, { output, done })
}

/** Resolves once the process has exited and both pipes have been read to their end (killing it after `timeoutMs`). */
export async function finished(child: Started, timeoutMs = PROCESS_TIMEOUT_MS): Promise<Result> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`bosun did not exit within ${timeoutMs}ms.\nstdout: ${child.output.stdout}\nstderr: ${child.output.stderr}`))
    }, timeoutMs)
  })
  try {
    return await Promise.race([child.done, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Waits until `check()` is true (polling), or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = PROCESS_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Writes `bosun.config.json` (and any extra files, relative to `dir`). */
export async function writeProject(dir: string, config: unknown, files: Record<string, string> = {}): Promise<void> {
  if (config !== undefined) await writeFile(join(dir, 'bosun.config.json'), JSON.stringify(config, null, 2))
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true })
    await writeFile(join(dir, name), text)
  }
}

/** The events of `<dir>/.bosun/sessions/<id>.jsonl`, read as the JSONL store's format documents it. */
export async function readEvents(dir: string, id: string): Promise<SessionEvent[]> {
  const text = await readFile(join(dir, '.bosun/sessions', `${id}.jsonl`), 'utf8')
  return text.trimEnd().split('\n').slice(1).map((line) => JSON.parse(line) as SessionEvent)
}

/** The session id `bosun run` prints last on stderr (`session <id>`). */
export function sessionIdFrom(stderr: string): string {
  const match = /session (\S+)\s*$/.exec(stripVTControlCharacters(stderr))
  if (!match) throw new Error(`no session id in stderr: ${stderr}`)
  return match[1]!
}

/** A tool module a config can name (`./tools/clock.mjs`): a plain object, no imports needed. */
export const CLOCK_TOOL = `export default {
  name: 'clock',
  description: 'Tells the time.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  execute: () => '12:00\\nsecond line of the result',
}
`

/** A tool that returns only once a file named `gate` exists in the cwd: a test opens it when it has seen what it waits for. */
export const GATE_TOOL = `import { existsSync } from 'node:fs'
export default {
  name: 'gate',
  description: 'Waits for the test.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async execute() {
    while (!existsSync('gate')) await new Promise((resolve) => setTimeout(resolve, 20))
    return 'open'
  },
}
`

/** A plugin module that blocks every step whose message contains "forbidden". */
export const GUARD_PLUGIN = `export default {
  kind: 'bosun-plugin',
  name: 'guard',
  schema: { type: 'object', properties: { word: { type: 'string' } }, additionalProperties: false },
  setup({ hooks }, { word = 'forbidden' }) {
    hooks.preStep.tap('guard', (decision) => {
      if (decision.kind !== 'enter') return decision
      const text = decision.messages.map((m) => m.content.map((b) => b.text ?? '').join('')).join(' ')
      return text.includes(word) ? { kind: 'reject', metadata: { word, reason: 'policy' } } : decision
    })
    hooks.event.tap('guard', () => {})
  },
}
`
