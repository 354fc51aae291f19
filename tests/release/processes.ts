// Real processes for the release rehearsal: each one runs to its end, both pipes read until they
// close, no time limit (npm, pnpm and bosun each end by themselves).
import { spawn } from 'node:child_process'

export interface Finished {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface RunOptions {
  cwd: string
  env: Record<string, string>
}

/** Runs `command` to completion; resolves once the process has exited and both pipes have closed. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text))
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text))
    child.once('error', reject)
    // 'close' comes after 'exit' and after both pipes have ended: nothing written is lost.
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

/** Runs `command` and fails with everything it printed unless it exits 0. */
export async function succeed(command: string, args: readonly string[], options: RunOptions): Promise<Finished> {
  const result = await run(command, args, options)
  if (result.code !== 0) throw new Error(describe(command, args, options, result))
  return result
}

/** `npm install @bosun/cli (in /tmp/x) exited 1:` and its output, for assertion messages. */
export function describe(command: string, args: readonly string[], options: RunOptions, result: Finished): string {
  const status = result.signal === null ? `exited ${result.code}` : `was killed by ${result.signal}`
  return `${[command, ...args].join(' ')} (in ${options.cwd}) ${status}:\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`
}

/**
 * The environment for a child that must see only the rehearsal's settings: the test runner's
 * `npm_*`, `pnpm_*` and vitest variables are dropped (a `pnpm test` run would otherwise hand its
 * own registry, cache and user config down), and `NODE_PATH`, which pnpm's bin shims (vitest's
 * own) point at the workspace's packages — a newcomer's `bosun` would not find those — then
 * `extra` is added.
 */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && !/^(npm_|pnpm_|vitest|NODE_OPTIONS$|NODE_PATH$|FORCE_COLOR$|NO_COLOR$)/i.test(entry[0]),
  )
  return { ...Object.fromEntries(kept), ...extra }
}
