import { BosunError, maskSecretValues } from '@bosun/core'
import type { OutputStream } from './io.js'
import { terminalColumns, type Style } from './output.js'
import { safeStyled } from './terminal-safe.js'
import { terminalRows } from './wrap.js'

/** Codes of errors the CLI itself raises (the rest come from `@bosun/core`'s `ErrorCodes`). */
export const CliErrorCodes = {
  /** The command line is wrong: unknown command or option, missing argument. */
  USAGE: 'USAGE',
  /** `resume`, `log`, `sessions show|fork|rm` named a session the store does not have. */
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  /** The config keeps sessions in memory, so there is nothing to list, show or resume. */
  NO_PERSISTENT_STORE: 'NO_PERSISTENT_STORE',
  /** `bosun sessions rm` was answered no (anything but "y"): nothing was removed. */
  NOT_CONFIRMED: 'NOT_CONFIRMED',
  /** `bosun chat` needs input: there is none (stdin closed). */
  NO_INPUT: 'NO_INPUT',
  /** What bosun was waiting for (a config file's code, a plugin's setup, a turn) can never finish. */
  STALLED: 'STALLED',
  /** `bosun serve` could not listen on its address and port (in use, not allowed, not this machine's). */
  LISTEN_FAILED: 'LISTEN_FAILED',
  /** `bosun init` found a config the loader would read in the current folder; `--force` replaces it (not a `package.json` key). */
  CONFIG_EXISTS: 'CONFIG_EXISTS',
  /** `bosun init` could not write its file or remove the config it replaces (permissions, a folder of that name). */
  CONFIG_NOT_WRITTEN: 'CONFIG_NOT_WRITTEN',
  /** `bosun init` found a `package.json` the config loader fails on (empty, not JSON): a config beside it would never load. */
  PACKAGE_JSON_INVALID: 'PACKAGE_JSON_INVALID',
} as const

/** A coded error for something the user can fix: printed as `error CODE: message`, never with a stack. */
export function cliError(code: keyof typeof CliErrorCodes, message: string, details?: Record<string, unknown>): BosunError {
  return new BosunError(code, message, details ? { details } : {})
}

/**
 * The text printed for a failed command. A Bosun error is a user error: its code and message,
 * nothing else. Anything else is a bug (or an unexpected system failure): its message, and a hint
 * that `--debug` shows the trace. With `debug`, the stack and every cause are printed. Registered
 * secrets are masked as `[redacted]`.
 */
export function describeError(error: unknown, style: Style, debug: boolean): string {
  const code = BosunError.is(error) ? error.code : 'UNEXPECTED'
  const message = messageOf(error)
  const lines = [`${style.red(style.bold('error'))} ${style.bold(code)}: ${message}`]
  if (debug) {
    let current: unknown = error
    let depth = 0
    while (current !== undefined && depth < 8) {
      const stack = current instanceof Error ? current.stack ?? String(current) : String(current)
      lines.push(style.dim(depth === 0 ? stack : `caused by: ${stack}`))
      current = current instanceof Error ? current.cause : undefined
      depth++
    }
  } else if (!BosunError.is(error)) {
    lines.push(style.dim('This looks like a bug in bosun or a plugin; run again with --debug for the stack trace.'))
  }
  // A registered secret (an `…Env` variable's value, an adapter's key) is masked by value: a
  // module's message or a cause's stack may quote one that has no key's shape.
  return maskSecretValues(lines.join('\n'))
}

/**
 * Writes a described error ({@link describeError}) to `stream`, its session text made safe for a
 * terminal. On a terminal each line is word-wrapped short of the last column, its later rows
 * indented, as `bosun log` wraps its lines — a config error's long message would otherwise be cut
 * mid-word by the terminal. Off a terminal (a pipe, a CI log) the lines are written whole.
 */
export function writeError(stream: OutputStream, text: string): void {
  stream.write(`${terminalRows([safeStyled(text)], terminalColumns(stream)).join('\n')}\n`)
}

/**
 * The message of a thrown value for the terminal, every registered secret (an `…Env` variable's
 * value, an adapter's key) masked as `[redacted]`: a plugin's or a provider's message may quote one.
 */
export function messageOf(error: unknown): string {
  return maskSecretValues(error instanceof Error ? error.message : String(error))
}
