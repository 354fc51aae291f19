// Review of 66f6417/27777aa: a flush refused because an earlier flush's records could be neither
// cut off the store journal nor zeroed names the step that failed (the journal's ftruncate, or the
// fdatasync after it, then the overwrite with zeros), not 'fdatasync of the store journal': that
// flush never wrote or synced the journal. The error's code stays STORE.
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { event, rejection } from './testing/fixtures.js'
import { tempDir, type FsCall, type FsOp } from './testing/recording-fs.js'
import { twoJournaledSessions } from './testing/two-sessions.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isJournal = (call: FsCall) => call.path.includes('.bosun-journal-')

it.each([
  ['its ftruncate', 'ftruncate'],
  ['the fdatasync after its ftruncate', 'fdatasync after the ftruncate'],
] as const)('a flush refused because the journal could not be cut (%s, then the zeros): the error names that step', async (_, step) => {
  const { fs, store, a, b } = await twoJournaledSessions(join(dir, 'live'))

  // a's flush: the journal's write fails (its step named since q19a, 'fdatasync of the store
  // journal' before), and neither the cut nor the zeros nor retiring the journal (its unlink) work.
  let broken = true
  fs.fail = (call) => (broken && isJournal(call) && ['datasync', 'truncate', 'write', 'unlink'].includes(call.op) ? 'EIO' : undefined)
  a.append(event(1))
  const first = await rejection(a.flush())
  expect(first.details).toMatchObject({ step: 'write of the store journal', rolledBack: false })

  // b's flush first tries the cut again: it fails at `step`, then the zeros fail; b's own records
  // are never written to the journal, nor synced there.
  const failing: FsOp = step === 'ftruncate' ? 'truncate' : 'datasync'
  fs.fail = (call) => (isJournal(call) && (call.op === failing || call.op === 'write' || call.op === 'unlink') ? 'EIO' : undefined)
  b.append(event(1))
  const refused = await rejection(b.flush())
  expect(refused.code).toBe('STORE')
  const named = `${step} of the store journal, then the overwrite with zeros (cutting off an earlier failed flush's records)`
  expect(refused.details).toMatchObject({ step: named, rolledBack: true, errno: 'EIO' })
  expect(refused.message).toContain(`${named} failed:`)
  expect(refused.message).not.toContain('fdatasync of the store journal')

  // Once the journal can be cut, both retries go through.
  broken = false
  fs.fail = () => undefined
  await Promise.all([a.flush(), b.flush()])
  await store.close()
})
