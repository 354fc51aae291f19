/**
 * The browser tests' parts, all real: Debian's Chromium driven by playwright-core, and the built
 * `bosun serve` as a child process on 127.0.0.1 over a JSONL store in a temporary folder, with a
 * scripted model (the offline model) configured to stream slowly.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { STOP_GRACE_MS, watchChild, type WatchedChild } from '../support/child-process.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const bin = join(root, 'packages/cli/dist/bin.js')
export const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url))

/** Where Chromium is: BOSUN_CHROMIUM, or Debian's package. */
export const chromiumPath = process.env.BOSUN_CHROMIUM ?? '/usr/bin/chromium'
export const hasChromium = existsSync(chromiumPath)

/** Polls `condition` until it holds (no fixed sleeps). */
export async function until<T>(condition: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await condition()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** A slow answer: `characters` of text, 3 characters every 30 ms. */
export function slowAnswer(characters: number): { text: string; chunkSize: number; delayMs: number } {
  const words = 'The bosun checks every line and block before the ship leaves harbour, then reports to the mate. '
  return { text: words.repeat(Math.ceil(characters / words.length)).slice(0, characters), chunkSize: 3, delayMs: 30 }
}

export interface Workspace { dir: string; cleanup(): Promise<void> }

/** A folder with a bosun.config.json: the scripted model with `responses`, a content filter that rejects "forbidden". */
export async function workspace(responses: unknown[]): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-web-e2e-'))
  const config = {
    model: { adapter: 'scripted', options: { responses } },
    plugins: [['content-filter', { rules: [{ id: 'secret', keywords: ['forbidden'], action: 'reject' }] }]],
  }
  await writeFile(join(dir, 'bosun.config.json'), JSON.stringify(config, null, 2))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

export interface Serve { url: string; child: ChildProcess; stop(): Promise<void>; kill(): Promise<void> }

export interface ServeOptions {
  /**
   * 0 (the default): `bosun serve` binds a free port itself and the URL it prints says which — a
   * port picked here and closed again could be taken by another process before the host binds
   * it. Give a port only to start a host again where a stopped one was (restart-flow.ts).
   */
  port?: number
  /** Added to the environment, e.g. BOSUN_HOST_TOKEN. */
  env?: Record<string, string>
  /** Another build's `packages/cli/dist/bin.js` (a comparison). */
  cli?: string
  /** More flags for `bosun serve` (e.g. `--cors <origin>`). */
  args?: readonly string[]
  /** How long the start may take: {@link START_TIMEOUT_MS} unless a test of the harness says less. */
  startTimeoutMs?: number
  /** Gives the start up (the child is killed), as the timeout does. */
  signal?: AbortSignal
  /** How long stop() waits after SIGTERM before SIGKILL: {@link STOP_GRACE_MS} unless a test says less. */
  stopGraceMs?: number
}

/**
 * How long a start may take before it is reported as stuck: a guard against a hang, not a
 * measure. Below the 60 s of the beforeAll hooks that start a host, so that a hung start is
 * given up — and its child killed — by the harness, not left running by a hook that timed out.
 */
export const START_TIMEOUT_MS = 45_000

/**
 * Runs the built `bosun serve` in `dir` and resolves once it has printed its URL (read from its
 * stdout as it comes) and its web UI line; rejects if it exits or cannot start first, with what it
 * said, or if it has not printed both within `startTimeoutMs` — and then it is killed, as on any
 * failed start. `stop()` asks it to end (SIGTERM) and kills it if it has not within `stopGraceMs`.
 */
export async function serve(dir: string, options: ServeOptions = {}): Promise<Serve> {
  const { port = 0, env = {}, cli = bin, args = [], startTimeoutMs = START_TIMEOUT_MS, signal, stopGraceMs = STOP_GRACE_MS } = options
  const child = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--grace-ms', '0', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  const watched = watchChild(child)
  const guard = AbortSignal.any([AbortSignal.timeout(startTimeoutMs), ...(signal === undefined ? [] : [signal])])
  const said = printed(child, watched, guard, startTimeoutMs)
  try {
    const url = (await said.line('stdout', /listening on (\S+)/, 'its URL'))[1]!
    const ui = await said.line('stderr', /web UI(:| not built)/, 'its web UI line')
    if (ui[1] !== ':') throw new Error(`bosun serve has no web UI (run pnpm build first): ${said.text.stderr}`)
    return { url, child, stop: () => watched.stop(stopGraceMs), kill: () => watched.kill() }
  } catch (error) {
    await watched.kill()
    throw error
  }
}

/**
 * What a child prints, kept as it comes; `line` resolves at the first match of `pattern` in one
 * stream's text so far — at once if it is there, else on the chunk that brings it — and rejects
 * once the child has ended without it (exited, or never started) or `guard` aborts (the start's
 * one deadline, or the caller giving up).
 */
function printed(child: ChildProcess, watched: WatchedChild, guard: AbortSignal, startTimeoutMs: number): { text: { stdout: string; stderr: string }; line(from: 'stdout' | 'stderr', pattern: RegExp, what: string): Promise<RegExpExecArray> } {
  const text = { stdout: '', stderr: '' }
  const checks = new Set<() => void>()
  for (const from of ['stdout', 'stderr'] as const) {
    child[from]!.on('data', (chunk: Buffer) => {
      text[from] += chunk.toString()
      for (const check of checks) check()
    })
  }
  // 'close' comes after both pipes have ended (also for a spawn that failed): what it printed is all in `text`.
  let closed = false
  child.once('close', () => {
    closed = true
    for (const check of checks) check()
  })
  const onAbort = (): void => {
    for (const check of checks) check()
  }
  guard.addEventListener('abort', onAbort, { once: true })
  const named = `bosun serve (pid ${child.pid ?? 'none'})`
  return {
    text,
    line: (from, pattern, what) =>
      new Promise((resolve, reject) => {
        const settle = (then: () => void): void => {
          checks.delete(check)
          then()
        }
        const check = (): void => {
          const match = pattern.exec(text[from])
          if (match !== null) settle(() => resolve(match))
          else if (watched.spawnError() !== undefined) settle(() => reject(new Error(`${named} could not start: ${watched.spawnError()!.message}`)))
          else if (closed) settle(() => reject(new Error(`${named} exited (${child.exitCode ?? child.signalCode}) before it printed ${what}: ${text.stderr}`)))
          else if (guard.aborted) {
            const timedOut = (guard.reason as Error | undefined)?.name === 'TimeoutError'
            settle(() => reject(new Error(`${named} did not print ${what} ${timedOut ? `within ${startTimeoutMs} ms` : 'before the start was aborted'}; it was killed: ${text.stderr}`)))
          }
        }
        checks.add(check)
        check()
      }),
  }
}

/** A fresh Chromium profile (its own --user-data-dir), headless. */
export async function launch(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'bosun-web-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  return {
    context,
    async close() {
      await context.close().catch(() => {})
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/** Saves a screenshot of the page under tests/web/artifacts/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(artifacts, { recursive: true })
  await page.screenshot({ path: join(artifacts, `${name}.png`) })
}

/** A `bosun serve` of a workspace answering `responses`, the sessions `ids` made over its API, and a Chromium. */
export interface Served { work: Workspace; server: Serve; browser: Awaited<ReturnType<typeof launch>>; close(): Promise<void> }

/** The setup most browser test files share: what {@link Served} says; `close()` ends all three. */
export async function servedWithSessions(responses: unknown[], ids: readonly string[]): Promise<Served> {
  const work = await workspace(responses)
  const server = await serve(work.dir).catch(async (error: unknown) => {
    await work.cleanup()
    throw error
  })
  // A browser that does not launch must not leave the host running: nothing would stop it.
  const browser = await launch().catch(async (error: unknown) => {
    await server.stop()
    await work.cleanup()
    throw error
  })
  const close = async (): Promise<void> => {
    await browser.close()
    await server.stop()
    await work.cleanup()
  }
  for (const id of ids) {
    const created = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }) })
    if (created.status !== 201) {
      await close()
      throw new Error(`POST /v1/sessions {"id":"${id}"} answered ${created.status}, not 201`)
    }
  }
  return { work, server, browser, close }
}
