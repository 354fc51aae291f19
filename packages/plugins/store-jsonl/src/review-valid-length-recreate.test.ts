// A record of a valid length (valid-length.ts) outlives its session file if that file is deleted
// by hand while the record is there (a writer closed before a flush could cut the file). It
// applies to a file with the same header line only — and a session created again under the same
// id with an equal header (a fixed createdAt, an import) has that header: the record would cut its
// acknowledged events off at the next open(). create() deletes such a record before it answers.
import { readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { event, header, rejection } from './testing/fixtures.js'
import { syncThenCutAndZerosFail, tempDir } from './testing/recording-fs.js'
import { oneSession } from './testing/one-session.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

it('a session created again with the same header after its file was deleted keeps every acknowledged event', async () => {
  const { live, fs, store, writer } = await oneSession(dir, false)
  fs.fail = syncThenCutAndZerosFail((call) => call.path.endsWith('/s.jsonl'))
  writer.append(event(1))
  expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: true })
  expect((await rejection(writer.close())).details).toMatchObject({ lost: 1, rolledBack: true })
  await store.close()
  expect(await readdir(live)).toContain('.bosun-valid-s')
  await unlink(join(live, 's.jsonl'))

  const again = jsonlStore({ dir: live })
  const created = await again.create(header('s'))
  expect(await readdir(live)).not.toContain('.bosun-valid-s')
  for (const seq of [0, 1, 2]) created.writer.append(event(seq, `again ${seq}`))
  await created.writer.flush()
  await again.close()

  const reopened = jsonlStore({ dir: live })
  // Before: [again 0] only — the stale record cut the file to the old session's length.
  expect((await reopened.read!('s'))!.events).toEqual([0, 1, 2].map((seq) => event(seq, `again ${seq}`)))
  expect((await reopened.open('s'))!.events).toEqual([0, 1, 2].map((seq) => event(seq, `again ${seq}`)))
  await reopened.close()
})
