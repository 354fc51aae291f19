/**
 * The browser tests' parts, all real: Debian's Chromium driven by playwright-core, and the built
 * `bosun serve` as a child process on 127.0.0.1 over a JSONL store in a temporary folder, with a
 * scripted model (the offline model) configured to stream slowly.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface Serve { url: string; child: ChildProcess; stop(): Promise<void>; kill(): Promise<void> }

/**
 * Runs the built `bosun serve --port <port>` in `dir` (with `env` added, e.g. BOSUN_HOST_TOKEN);
 * resolves once it prints its URL. `cli`: another build's `packages/cli/dist/bin.js` (a comparison);
 * `args`: more flags for `bosun serve` (e.g. `--cors <origin>`).
 */
export async function serve(dir: string, port: number, env: Record<string, string> = {}, cli = bin, args: readonly string[] = []): Promise<Serve> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--grace-ms', '0', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await until(() => {
    if (child.exitCode !== null) throw new Error(`bosun serve exited ${child.exitCode}: ${stderr}`)
    return /listening on (\S+)/.exec(stdout)?.[1]
  }, 'bosun serve to listen')
  if (!stderr.includes('web UI:')) await until(() => stderr.includes('web UI:') || stderr.includes('not built'), 'the web UI line')
  if (!stderr.includes('web UI:')) throw new Error(`bosun serve has no web UI (run pnpm build first): ${stderr}`)
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL')
      await exited
    },
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
  const server = await serve(work.dir, await freePort())
  const browser = await launch()
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
