import type { TurnEndReason } from '@bosun/core'

/** Process exit codes (docs/cli.md lists them). */
export const ExitCode = {
  /** The turn completed (or stopped at max-tokens, with a warning); the command did what it was asked. */
  ok: 0,
  /** The turn ended in error, or the command failed (a coded error is printed). */
  error: 1,
  /** The command line is wrong (unknown command or option, missing argument). */
  usage: 2,
  /** A pre-step plugin blocked the turn. */
  blocked: 3,
  /**
   * bosun waited for code from the config — the config file's own code, a plugin's setup, a hook,
   * a tool — that can never finish (nothing is left running that could finish it); the message
   * says what it was waiting for.
   */
  stalled: 4,
  /** The turn was aborted (Ctrl+C): 128 + SIGINT, as shells report it. */
  aborted: 130,
  /** SIGTERM ended `bosun run` or `bosun chat`, a running turn aborted and closed in the log first: 128 + SIGTERM. */
  terminated: 143,
  /** SIGHUP (the terminal closed) ended `bosun run` or `bosun chat` as SIGTERM does: 128 + SIGHUP. */
  hangup: 129,
} as const

/** The exit code of a turn that ended with `reason`. */
export function exitCodeFor(reason: TurnEndReason): number {
  switch (reason.kind) {
    case 'completed':
    case 'max-tokens':
      return ExitCode.ok
    case 'blocked':
      return ExitCode.blocked
    case 'aborted':
      return ExitCode.aborted
    default:
      return ExitCode.error
  }
}
