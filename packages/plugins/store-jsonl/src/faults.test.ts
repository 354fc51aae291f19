// Fault injection: every write, fdatasync, fstat and ftruncate of a multi-batch workload is made
// to fail in turn (ENOSPC, EIO); nothing committed may change and nothing appended may be lost.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { jsonlStore } from './store.js'
import { event, fileText, header, sessionFile } from './testing/fixtures.js'
import { recordingFs, tempDir, type FsCall } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

/** Events per batch: several batches, one of a single event. */
const WORKLOAD = [3, 1, 6, 2]
const FAULTABLE = new Set(['write', 'datasync', 'stat', 'truncate'])

interface Run {
  failures: unknown[]
  /** Counted (faultable) calls made after the session was created. */
  calls: number
}

/**
 * Runs the workload in a fresh folder, failing the counted calls whose 1-based index is in
 * `faults`. Checks after every failed flush, retries until the flush succeeds, and at the end
 * reopens the session with a clean store and compares it byte for byte.
 */
async function runWorkload(
  folder: string, faults: ReadonlySet<number>, code: string, check: (file: Buffer, committed: Buffer, next: Buffer) => void,
  writeSync = false, journal = false,
): Promise<Run> {
  const fs = recordingFs(undefined, { writeSync })
  const store = jsonlStore({ dir: folder, fs, batchWindowMs: 10_000, journal })
  const { writer } = await store.create(header('s'))
  let counted = 0
  fs.fail = (call: FsCall) => (FAULTABLE.has(call.op) && faults.has(++counted) ? code : undefined)
  const appended: SessionEvent[] = []
  const failures: unknown[] = []
  for (const size of WORKLOAD) {
    const committed = Buffer.from(fileText(header('s'), appended))
    for (let i = 0; i < size; i++) {
      const e = event(appended.length)
      appended.push(e)
      writer.append(e)
    }
    const next = Buffer.from(fileText(header('s'), appended))
    for (let attempt = 0; ; attempt++) {
      try {
        await writer.flush()
        break
      } catch (error) {
        failures.push(error)
        expect(BosunError.is(error, 'STORE')).toBe(true)
        expect(((error as Error).cause as { code?: string }).code).toBe(code)
        expect((error as Error).message).toContain(sessionFile(folder, 's'))
        check(await readFile(sessionFile(folder, 's')), committed, next)
        expect(attempt).toBeLessThan(5)
      }
    }
    expect(await readFile(sessionFile(folder, 's'))).toEqual(next)
  }
  await store.close()
  const reopened = jsonlStore({ dir: folder })
  const opened = (await reopened.open('s'))!
  expect(opened.events).toEqual(appended)
  expect(await readFile(sessionFile(folder, 's'), 'utf8')).toBe(fileText(header('s'), appended))
  await reopened.close()
  return { failures, calls: counted }
}

const exact = (file: Buffer, committed: Buffer) => expect(file).toEqual(committed)

// Without the journal a batch is fstat, write, fdatasync of the session file; with it, fstat and
// write of the session file, then write and fdatasync of the store journal — and closing adds the
// session file's own fdatasync (not failed here: the journal tests fail it).
describe.each([
  ['per-file fdatasyncs (journal: false)', false, 3, 0],
  ['the store journal', true, 4, 1],
] as const)('fault injection, %s', (_, journal, perBatch, closing) => {
  it('the k-th write, fdatasync or fstat fails, for every k: the file keeps exactly its committed bytes, the flush caller gets STORE with the errno, and the retry loses nothing', async () => {
    const { calls } = await runWorkload(join(dir, 'dry'), new Set(), 'EIO', exact, false, journal)
    expect(calls).toBe(WORKLOAD.length * perBatch + closing)
    for (let k = 1; k <= calls - closing; k++) {
      const code = k % 2 === 0 ? 'ENOSPC' : 'EIO'
      const run = await runWorkload(join(dir, `k${k}`), new Set([k]), code, exact, false, journal)
      expect(run.failures).toHaveLength(1)
    }
  })

  it('with the default file system\'s synchronous writes: the k-th call of a batch fails, for every k, and nothing is lost', async () => {
    const { calls } = await runWorkload(join(dir, 'dry'), new Set(), 'EIO', exact, true, journal)
    expect(calls).toBe(WORKLOAD.length * perBatch + closing)
    for (let k = 1; k <= calls - closing; k++) {
      const code = k % 2 === 0 ? 'ENOSPC' : 'EIO'
      const run = await runWorkload(join(dir, `k${k}`), new Set([k]), code, exact, true, journal)
      expect(run.failures).toHaveLength(1)
    }
  })

  it('two calls in a row fail (a failed write or fdatasync, then its rollback): the next flush cuts the file back and completes it', async () => {
    const { calls: all } = await runWorkload(join(dir, 'dry'), new Set(), 'EIO', exact, false, journal)
    const calls = all - 2 * closing // the last pair must not reach the closing fdatasync
    const prefix = (file: Buffer, committed: Buffer, next: Buffer) => {
      // The rollback may have failed: the file is the committed bytes plus part of the batch, or
      // plus the zeros written over the batch when it could not be cut — never anything else.
      expect(file.subarray(0, committed.length)).toEqual(committed)
      const tail = file.subarray(committed.length)
      if (!tail.every((byte) => byte === 0)) expect(next.subarray(0, file.length)).toEqual(file)
    }
    for (let k = 1; k <= calls; k++) {
      const run = await runWorkload(join(dir, `k${k}`), new Set([k, k + 1]), 'ENOSPC', prefix, false, journal)
      expect(run.failures.length).toBeGreaterThanOrEqual(1)
    }
  })
})
