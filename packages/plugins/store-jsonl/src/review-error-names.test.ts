// The steps of a session's valid-length record (valid-length.ts) are named in errors by the
// record's name, `.bosun-valid-<id>`, not its absolute path: `details.step` may reach a client (a
// host's error answer), which must not learn the server's directory layout. The store's own words
// in the message name the record the same way; `details.file` stays the session file, as for
// every STORE error.
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { BosunError } from '@bosun/core'
import { jsonlStore } from './store.js'
import { event, header, rejection } from './testing/fixtures.js'
import { recordingFs, syncThenCutAndZerosFail, tempDir, type FsCall } from './testing/recording-fs.js'
import { oneSession } from './testing/one-session.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isRecord = (call: FsCall) => call.path.includes('.bosun-valid-')

/** The error names its step without a directory; nothing in its details but `file` holds one. */
function expectNoFolderIn(error: BosunError, step: string, folder: string): void {
  expect(error.details).toMatchObject({ step, file: join(folder, 's.jsonl') })
  const { file: _file, ...rest } = error.details as Record<string, unknown>
  expect(JSON.stringify(rest)).not.toContain(folder)
  expect(error.message).toContain(`${step} failed`)
}

/** Session `s` after a triple failure (sync, cut and zeros failing): its valid length recorded beside it. */
async function fencedSession() {
  const session = await oneSession(dir, false)
  session.fs.fail = syncThenCutAndZerosFail((call) => call.path.endsWith('/s.jsonl'))
  session.writer.append(event(1))
  const error = await rejection(session.writer.flush())
  expect(error.details).toMatchObject({ rolledBack: true })
  // Before: "recorded in <dir>/live/.bosun-valid-s".
  expect(error.message).toContain('recorded beside it, in .bosun-valid-s:')
  expect(error.message).not.toContain(join(session.live, '.bosun-valid-s'))
  return session
}

it.each([
  ['unlink of .bosun-valid-s', (call: FsCall) => isRecord(call) && call.op === 'unlink'],
  ['fsync of the directory (deleting .bosun-valid-s)', (call: FsCall) => call.op === 'open' && call.path.endsWith('/live')],
])('the next flush, deleting the record, fails at "%s": the step names the record, not its path', async (step, failing) => {
  const { live, fs, store, writer } = await fencedSession()
  fs.fail = (call) => (failing(call) ? 'EIO' : undefined)
  // Before: `${step}` with <dir>/live/.bosun-valid-s in it.
  expectNoFolderIn(await rejection(writer.flush()), step, live)
  fs.fail = () => undefined
  await writer.flush()
  await store.close()
})

it('open() and read() that cannot read the record: "read of .bosun-valid-s"', async () => {
  const { live, fs, store } = await fencedSession()
  fs.fail = () => undefined
  await store.close().catch(() => {})
  const reading = recordingFs(undefined, { writeSync: true })
  reading.fail = (call) => (isRecord(call) && call.op === 'open' ? 'EIO' : undefined)
  const again = jsonlStore({ dir: live, fs: reading })
  expectNoFolderIn(await rejection(again.open('s')), 'read of .bosun-valid-s', live)
  expectNoFolderIn(await rejection(again.read!('s')), 'read of .bosun-valid-s', live)
  await again.close()
})

it('create() that cannot delete a stale record: "unlink of .bosun-valid-s"', async () => {
  const live = join(dir, 'live')
  const fs = recordingFs()
  fs.fail = (call) => (isRecord(call) && call.op === 'unlink' ? 'EIO' : undefined)
  const store = jsonlStore({ dir: live, fs })
  expectNoFolderIn(await rejection(store.create(header('s'))), 'unlink of .bosun-valid-s', live)
  await store.close()
})
