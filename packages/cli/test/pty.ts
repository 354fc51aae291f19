import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BIN, PROCESS_TIMEOUT_MS, cleanEnv } from './helpers.js'

const DRIVER = resolve(dirname(fileURLToPath(import.meta.url)), 'pty_driver.py')

/** One step of a pty scenario (see pty_driver.py). */
export type PtyStep =
  | { expect: string; timeout?: number }
  | { expect_raw: string; timeout?: number }
  | { send: string }
  | { sleep: number }
  | { snapshot: string }
  /** Creates the file in the scenario's cwd: opens a gate a tool of the test waits for. */
  | { touch: string }
  /** Sends the process a signal (`SIGTERM`), as `timeout` or `docker stop` would. */
  | { signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP' }
  | { wait_exit: true; timeout?: number }
  /** Closes the terminal, as closing its window does (the program gets SIGHUP), and waits for the exit. The last step. */
  | { hangup: true; timeout?: number }

export interface PtyResult {
  ok: boolean
  error: string | null
  /** Index of the step that failed (or the last one). */
  step: number | null
  exit_code: number | null
  /** What the terminal shows, scrollback included, after the driver's small VT100 emulation. */
  screen: string
  /** Every byte the program wrote, escape sequences included. */
  raw: string
  snapshots: Record<string, string>
}

/** Keys as a terminal sends them. */
export const Keys = { enter: '\r', ctrlC: '\u0003', ctrlD: '\u0004' } as const

/**
 * Runs `bosun <args>` in a real pseudo-terminal (Python's `pty`, no tmux) and plays `steps`:
 * type, wait for the screen to show something, take snapshots.
 */
export async function runInPty(
  args: string[],
  steps: PtyStep[],
  options: {
    cwd: string; cols?: number; rows?: number; env?: Record<string, string | undefined>; timeoutSeconds?: number
    /** The command the terminal runs instead of `bosun <args>` (a shell the test types into; `args` is then unused). */
    argv?: string[]
  },
): Promise<PtyResult> {
  const scenario = {
    argv: options.argv ?? [process.execPath, BIN, ...args],
    cwd: options.cwd,
    env: cleanEnv({ TERM: 'xterm-256color', ...options.env }),
    cols: options.cols ?? 100,
    rows: options.rows ?? 40,
    // A guard against a hang, not a measure: the suite shares two cores with other work.
    timeout: options.timeoutSeconds ?? (2 * PROCESS_TIMEOUT_MS) / 1000,
    steps,
  }
  const file = join(options.cwd, '.pty-scenario.json')
  await writeFile(file, JSON.stringify(scenario))
  return new Promise((resolvePromise, reject) => {
    const child = spawn('python3', [DRIVER, file], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text))
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the pty driver failed (exit ${code}): ${stderr}`))
      resolvePromise(JSON.parse(stdout) as PtyResult)
    })
  })
}
