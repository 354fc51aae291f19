// The campaign's host processes (host.mjs): started until they print `listening <url>`, and
// stopped within a bound. A host that does not listen in time, ends first or cannot start is
// killed and reported; one that ignores SIGTERM is killed after the grace — none is left running
// after the campaign, and none hangs its cleanup.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { watchChild } from '../support/child-process.js'

const hostScript = fileURLToPath(new URL('./host.mjs', import.meta.url))
const here = fileURLToPath(new URL('.', import.meta.url))

export interface Host {
  name: string
  url: string
  child: ChildProcess
  /** Until the process has exited (a SIGKILL the campaign sends included). */
  readonly alive: boolean
  /** The last 4000 characters it wrote on stderr. */
  stderr: string
  /** SIGTERM, then SIGKILL if it has not exited within the grace; resolves once it has. */
  stop(): Promise<void>
}

export interface HostStartOptions {
  /** Another script in host.mjs's place (the tests of this file). */
  script?: string
  /** How long it may take to listen: a guard against a hang, not a measure. Default 60 s. */
  startTimeoutMs?: number
  /** How long stop() waits after SIGTERM. Default 30 s. */
  stopGraceMs?: number
}

/** Starts host.mjs as `name` with `env` added; resolves once it prints its URL. */
export async function startHost(name: string, env: Record<string, string>, options: HostStartOptions = {}): Promise<Host> {
  const { script = hostScript, startTimeoutMs = 60_000, stopGraceMs = 30_000 } = options
  const child = spawn(process.execPath, [script], { cwd: here, env: { ...process.env, ...env, OWNER: name }, stdio: ['ignore', 'pipe', 'pipe'] })
  const watched = watchChild(child)
  const host: Host = {
    name,
    url: '',
    child,
    get alive() {
      return !watched.hasEnded()
    },
    stderr: '',
    stop: () => watched.stop(stopGraceMs),
  }
  child.stderr!.on('data', (chunk: Buffer) => (host.stderr = (host.stderr + chunk.toString()).slice(-4000)))
  // 'close' comes once both pipes have ended (also for a spawn that failed): its stderr is all read by then.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  let out = ''
  const listening = new Promise<void>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening (\S+)/.exec(out)
      if (match === null || host.url !== '') return
      host.url = match[1]!
      resolve()
    })
  })
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<'timed out'>((resolve) => (timer = setTimeout(() => resolve('timed out'), startTimeoutMs)))
  const outcome = await Promise.race([listening.then(() => 'listening' as const), closed.then(() => 'ended' as const), timedOut])
  clearTimeout(timer)
  if (outcome === 'listening') return host
  await watched.kill()
  await closed
  const why = watched.spawnError()?.message ?? (outcome === 'timed out' ? `did not listen within ${startTimeoutMs} ms; it was killed` : `exited (${child.exitCode ?? child.signalCode}) before listening`)
  throw new Error(`host ${name} (pid ${child.pid ?? 'none'}) ${why}: ${host.stderr}`)
}
