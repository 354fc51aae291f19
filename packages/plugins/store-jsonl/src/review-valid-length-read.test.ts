// read() takes no lock: it runs beside a writer or an open() that may cut a session file to its
// recorded valid length and then delete the record (valid-length.ts). A read that saw the file
// before the cut must also see the record: read() looks for the record first, then reads the
// file, so a batch already rejected (and fenced off by the record) never comes back in a read.
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { event, readSession, rejection } from './testing/fixtures.js'
import { recordingFs, syncThenCutAndZerosFail, tempDir, type FsCall } from './testing/recording-fs.js'
import { oneSession } from './testing/one-session.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

it('a read() racing the open() that cuts the file and deletes its record does not return the rejected events', async () => {
  const { live, fs, store, writer } = await oneSession(dir, false)
  // Event 1's fdatasync fails, then every cut and write of the file: the valid length is recorded.
  fs.fail = syncThenCutAndZerosFail((call) => call.path.endsWith('/s.jsonl'))
  // Two lines: the zeros go from the last line, and the failing write stops in it, so event 1's line stays whole.
  writer.append(event(1))
  writer.append(event(2))
  expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: true })
  expect((await rejection(writer.close())).details).toMatchObject({ lost: 2, rolledBack: true })
  expect(await readSession(live, 's')).toContain(JSON.stringify(event(1)))
  fs.fail = () => undefined

  // Another store reads the session; its second look (at the file or at the record, whichever
  // comes second) waits until this store's open() has cut the file and deleted the record.
  const readerFs = recordingFs()
  const looks = (call: FsCall) =>
    (call.op === 'readFile' && call.path === join(live, 's.jsonl')) || (call.op === 'open' && call.path.includes('.bosun-valid-'))
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  let seen = 0
  let reached!: () => void
  const held = new Promise<void>((resolve) => (reached = resolve))
  readerFs.hold = (call) => {
    if (!looks(call) || ++seen !== 2) return undefined
    reached()
    return gate
  }
  const reading = jsonlStore({ dir: live, fs: readerFs }).read!('s')
  await held
  const opened = (await store.open('s'))!
  expect(opened.events).toEqual([event(0)])
  release()
  // Before: [event 0, event 1] — the file read before the cut, the record looked for after its deletion.
  expect((await reading)!.events).toEqual([event(0)])
  await store.close()
})
