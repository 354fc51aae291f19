// Shared plumbing of the store benchmarks: temp directories on the real disk, a raw JSONL
// writer (the machine's limit), percentiles and the summary lines printed after each task.
//
// Hooks: vitest 4.1 builds each tinybench Task without per-task options, so `beforeEach`,
// `beforeAll`… given to `bench()` are silently ignored. What tinybench 2.9 does honour is the
// Bench-level `setup(task, mode)` (awaited) and `teardown(task, mode)` (called, not awaited),
// once around the warm-up phase and once around the measured phase. These benchmarks use only
// those two, and bench functions are `async` (a plain function would be called once more,
// untimed, by tinybench's async detection).
import { mkdtempSync, rmSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BenchOptions } from 'vitest'
import type { SessionEvent } from '@bosun/core'

const dirs = new Set<string>()
// Best effort only: vitest's workers do not always run 'exit' handlers. Every benchmark removes its
// directories itself when its last measurement ends.
process.once('exit', () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A fresh directory under `os.tmpdir()` (the real disk), removed by {@link removeDir} or at exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `bosun-bench-${prefix}-`))
  dirs.add(dir)
  return dir
}

/** Removes a directory now (files still open stay readable by their handles until closed). */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
  dirs.delete(dir)
}

/**
 * The raw limit: what the JSONL store writes, without the store. Each batch is the same bytes
 * (`JSON.stringify(event) + '\n'` per event, which is exactly the store's line), one positional
 * `FileHandle.write` and one `FileHandle.datasync()` (the store's fdatasync).
 */
export class RawLog {
  #position = 0
  private constructor(readonly handle: FileHandle) {}

  static async create(file: string): Promise<RawLog> {
    const log = new RawLog(await open(file, 'wx', 0o600))
    await log.writeBatch(['{"bosun":"session","id":"raw","version":1,"createdAt":1700000000000}\n'])
    return log
  }

  /** One batch of events: serialise, one write, one datasync. */
  async write(events: readonly SessionEvent[]): Promise<void> {
    let text = ''
    for (const event of events) text += JSON.stringify(event) + '\n'
    await this.writeBatch([text])
  }

  async writeBatch(texts: readonly string[]): Promise<void> {
    const bytes = Buffer.from(texts.join(''), 'utf8')
    let offset = 0
    while (offset < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, offset, bytes.length - offset, this.#position + offset)
      offset += bytesWritten
    }
    this.#position += bytes.length
    await this.handle.datasync()
  }

  close(): Promise<void> {
    return this.handle.close()
  }
}

/**
 * The machine is shared and its virtual disk's fsync cost drifts by tens of percent within a
 * minute, so contenders compared side by side are measured in interleaved rounds (round 1: A,
 * B, C; round 2: A, B, C; …) and summed over the rounds, rather than one after the other: a slow
 * spell then hits every contender instead of one.
 */
export const ROUNDS = 3

/** The `q`-quantile (0…1) of an ascending array (nearest rank, as tinybench's p75/p99). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))]!
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/** Summary lines are printed with this prefix, so they can be grepped out of the run's output. */
export function report(line: string): void {
  console.log(`[bench] ${line}`)
}

type Mode = 'warmup' | 'run'
/** tinybench's Bench-level hooks (honoured by vitest 4.1, unlike per-task ones); `teardown` is not awaited. */
export function phaseOptions(
  options: { time: number; warmupTime: number; iterations?: number; warmupIterations?: number },
  setup: (mode: Mode) => Promise<void>,
  teardown: (mode: Mode) => void,
): BenchOptions {
  return {
    iterations: 1,
    warmupIterations: 1,
    ...options,
    setup: (_task: unknown, mode: Mode) => setup(mode),
    teardown: (_task: unknown, mode: Mode) => teardown(mode),
  } as BenchOptions
}
