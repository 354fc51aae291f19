import type { Readable, Writable } from 'node:stream'

/** A stream the CLI writes to: a TTY knows its width. */
export type OutputStream = Writable & { isTTY?: boolean; columns?: number }

/** What a command reads from and writes to. `processIo()` is the real one; tests may pass their own. */
export interface Io {
  stdout: OutputStream
  stderr: OutputStream
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown }
  cwd: string
  env: Readonly<Record<string, string | undefined>>
  /**
   * Calls `listener` on each Ctrl+C (SIGINT) until the returned function is called. While a
   * listener is subscribed, Ctrl+C does not end the process: the command decides.
   */
  onInterrupt(listener: () => void): () => void
}

/** The process's own streams, working directory, environment and SIGINT. */
export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
    onInterrupt(listener) {
      process.on('SIGINT', listener)
      return () => process.off('SIGINT', listener)
    },
  }
}
