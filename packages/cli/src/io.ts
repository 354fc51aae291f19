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

/**
 * A write error that means the reader is gone, not a fault: EPIPE, a pipe's reader went away
 * (`bosun log | head`); EIO, a terminal that hung up (its window closed, an SSH connection dropped).
 */
const READER_GONE = new Set(['EPIPE', 'EIO'])

/**
 * The process's own streams, working directory, environment and SIGINT. A reader that goes away
 * (`bosun log | head`, a closed terminal) makes stdout fail with EPIPE or EIO: that is taken as a
 * Ctrl+C — a running turn is aborted and closed properly — never as a crash with a stack trace.
 * stderr failing so is ignored: there is no one left to read the lines written there.
 */
export function processIo(): Io {
  const listeners = new Set<() => void>()
  let pipeClosed = false
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (!READER_GONE.has(error.code ?? '')) throw error
    pipeClosed = true
    for (const listener of listeners) listener()
  })
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (!READER_GONE.has(error.code ?? '')) throw error
  })
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
    onInterrupt(listener) {
      process.on('SIGINT', listener)
      listeners.add(listener)
      // The reader went away before this listener came: stop at once.
      if (pipeClosed) queueMicrotask(listener)
      return () => {
        process.off('SIGINT', listener)
        listeners.delete(listener)
      }
    },
  }
}
