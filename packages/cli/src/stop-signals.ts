import { ExitCode } from './exit-codes.js'

/**
 * The signals that end `bosun run`, `bosun chat` and `bosun serve` gracefully besides Ctrl+C: the
 * running turn aborted with this reason and closed in the log, the session closed (its lock
 * released), then the exit code shells report for the signal (128 + its number).
 */
export const STOP_SIGNALS = {
  /** `timeout`, `docker stop`, a cancelled CI job, `kill`. */
  SIGTERM: { reason: 'terminated', exitCode: ExitCode.terminated },
  /** The terminal went away: its window closed, an SSH connection dropped. */
  SIGHUP: { reason: 'hangup', exitCode: ExitCode.hangup },
} as const

export type StopSignal = keyof typeof STOP_SIGNALS

/**
 * Calls `listener` on SIGTERM and SIGHUP until the returned function is called. Without a listener
 * Node dies of SIGHUP at once — a closed terminal window left the running turn open in the log,
 * the session's lock behind, and what the store had not yet written was lost.
 *
 * `nohup` does not keep a Node program alive anyway: Node resets an ignored SIGHUP to its default
 * when it starts, so under nohup (whose redirections leave no terminal) a SIGHUP ended bosun
 * abruptly before, and now ends it as SIGTERM does.
 */
export function onStopSignal(listener: (signal: StopSignal) => void): () => void {
  const handlers = (['SIGTERM', 'SIGHUP'] as const).map((signal) => [signal, () => listener(signal)] as const)
  for (const [signal, handler] of handlers) process.on(signal, handler)
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler)
  }
}
