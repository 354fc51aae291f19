// FIFOs for the tests, made with the real mkfifo(1), and a way to free a reader stuck on one.
import { spawnSync } from 'node:child_process'
import { constants, openSync, closeSync } from 'node:fs'

/** Whether this machine can make FIFOs (not on Windows). */
export const canMakeFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).error === undefined

/** Makes a FIFO at `path` with mkfifo(1); throws if that fails. */
export function makeFifo(path: string): void {
  const result = spawnSync('mkfifo', [path], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`mkfifo ${path} failed: ${result.stderr || result.error?.message}`)
}

/**
 * Opens the FIFO for writing and closes it at once, so that a reader blocked opening it (the bug
 * the tests guard against) sees end-of-file and lets the test process exit. No-op when no one
 * waits (ENXIO: no reader) or the FIFO is gone.
 */
export function releaseFifoReaders(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK))
  } catch {
    // No reader waiting, or no FIFO: nothing to release.
  }
}
