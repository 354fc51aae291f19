// Ending a test's child process within a bound, for the harnesses that start servers (the web
// tests' `bosun serve`, the rehearsal's Verdaccio, `bosun acp`): a child that ignores SIGTERM, or
// one that never started, must not hang a test's cleanup, and a failed spawn must be an error the
// harness reports, not an uncaught one.
import type { ChildProcess } from 'node:child_process'

/** How long a child asked to stop (SIGTERM) may take before it is killed: a guard against a hang, not a measure. */
export const STOP_GRACE_MS = 10_000

export interface WatchedChild {
  /** Resolves once the child has exited — or has failed to start, which emits 'close' but never 'exit'. */
  ended: Promise<void>
  hasEnded(): boolean
  /** Why the spawn failed (ENOENT: no such program or cwd…), once it has. */
  spawnError(): Error | undefined
  /** Resolves true once the child has ended by itself, false if it has not within `ms`. */
  endsWithin(ms: number): Promise<boolean>
  /** SIGTERM, then SIGKILL if it has not ended within `graceMs`; resolves once it has ended. */
  stop(graceMs?: number): Promise<void>
  /** SIGKILL; resolves once it has ended. */
  kill(): Promise<void>
}

/** Watches `child`, to be called right after spawn(): listens to 'error' so a failed spawn is not an uncaught exception. */
export function watchChild(child: ChildProcess): WatchedChild {
  let spawnError: Error | undefined
  let done = child.exitCode !== null || child.signalCode !== null
  const ended = new Promise<void>((resolve) => {
    const end = (): void => {
      done = true
      resolve()
    }
    if (done) end()
    child.once('exit', end).once('close', end)
  })
  child.on('error', (error) => {
    // Also emitted when a signal cannot be sent; a spawn failure is the one with no pid.
    if (child.pid === undefined) spawnError ??= error
  })
  const endsWithin = async (ms: number): Promise<boolean> => {
    if (done) return true
    let timer: NodeJS.Timeout | undefined
    const bound = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))
    try {
      return await Promise.race([ended.then(() => true as const), bound])
    } finally {
      clearTimeout(timer)
    }
  }
  const kill = async (): Promise<void> => {
    if (!done) child.kill('SIGKILL')
    await ended
  }
  return {
    ended,
    hasEnded: () => done,
    spawnError: () => spawnError,
    endsWithin,
    async stop(graceMs = STOP_GRACE_MS) {
      if (done) return
      child.kill('SIGTERM')
      if (!(await endsWithin(graceMs))) await kill()
    },
    kill,
  }
}

/** Whether a process with this pid is running (signal 0 only checks): how a test sees that a child it cannot reach was killed. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
}
