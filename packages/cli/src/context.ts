import type { Io } from './io.js'
import { createPrinter, type Printer } from './output.js'

/** What every command gets: the streams (with colour decided once), and the global options. */
export interface CommandContext {
  io: Io
  /** stdout: answers and command output. */
  out: Printer
  /** stderr: progress, tool calls, warnings, errors. */
  err: Printer
  /** `--config <file>`: load this file instead of searching. */
  configFile: string | undefined
  /** `--debug`: print stack traces. */
  debug: boolean
}

export function createContext(io: Io, options: { config?: string; debug?: boolean; color?: boolean }): CommandContext {
  return {
    io,
    out: createPrinter(io.stdout, io.env, options.color !== false),
    err: createPrinter(io.stderr, io.env, options.color !== false),
    configFile: options.config,
    debug: options.debug === true,
  }
}
