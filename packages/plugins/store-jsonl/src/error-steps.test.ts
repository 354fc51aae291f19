// Each failure names the step that failed (`details.step`, and the message): the store journal's
// creation, its write and its fdatasync; the cut a writer makes before writing again. Before q19a
// every journal failure said 'fdatasync of the store journal', and a failed fdatasync after the
// cut said 'ftruncate'.
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { event, rejection } from './testing/fixtures.js'
import { recordingFs, tempDir, type FsCall } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isJournal = (call: FsCall) => call.path.includes('.bosun-journal-')

/** A store with the journal and session `s` created; the journal is created by the first flush. */
async function session() {
  const live = join(dir, 'live')
  const fs = recordingFs(undefined, { writeSync: true })
  const store = jsonlStore({ dir: live, fs, batchWindowMs: 10_000, journal: true })
  const { writer } = await store.create({ id: 's', version: 1, createdAt: 1 })
  return { live, fs, store, writer }
}

it.each([
  ['open of the store journal', (call: FsCall) => call.op === 'open' && isJournal(call)],
  ['fsync of the directory (creating the store journal)', (call: FsCall) => call.op === 'sync' && call.path === join(dir, 'live')],
  ['write of the store journal', (call: FsCall) => call.op === 'write' && isJournal(call)],
  ['fdatasync of the store journal', (call: FsCall) => call.op === 'datasync' && isJournal(call)],
])('a journal failure at "%s" names that step', async (step, failing) => {
  const { fs, store, writer } = await session()
  let once = true
  fs.fail = (call) => (once && failing(call) ? ((once = false), 'EIO') : undefined)
  writer.append(event(0))
  const error = await rejection(writer.flush())
  expect(error.code).toBe('STORE')
  expect(error.details).toMatchObject({ step, errno: 'EIO', rolledBack: true })
  expect(error.message).toContain(`${step} failed:`)
  expect(once).toBe(false)
  await writer.flush()
  await store.close()
})

it('the cut before the next batch: a failed fdatasync after the ftruncate is named so, not "ftruncate"', async () => {
  const { fs, store, writer } = await session()
  writer.append(event(0))
  await writer.flush()
  // Event 1: the journal's fdatasync fails and the file's cut fails (zeroed instead): the file is still to cut.
  let phase = 0
  fs.fail = (call) => {
    if (phase === 0 && call.op === 'datasync' && isJournal(call)) return (phase = 1), 'EIO'
    if (phase === 1 && call.op === 'truncate' && !isJournal(call)) return (phase = 2), 'EIO'
    // The next batch's cut: its ftruncate works, the fdatasync after it fails.
    if (phase === 3 && call.op === 'datasync' && !isJournal(call) && fs.calls.at(-2)?.op === 'truncate') return (phase = 4), 'EIO'
    return undefined
  }
  writer.append(event(1))
  expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: true })
  expect(phase).toBe(2)
  phase = 3
  const error = await rejection(writer.flush())
  expect(phase).toBe(4)
  expect(error.details).toMatchObject({ step: 'fdatasync after the ftruncate', rolledBack: true })
  await writer.flush()
  await store.close()
})
