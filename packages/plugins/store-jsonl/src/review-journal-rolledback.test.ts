// Review of 08f4730: details.rolledBack with the store journal. A journal flush whose bytes could
// be neither cut nor zeroed leaves its records in the journal (its members are told their batch
// may come back). A later flush first tries to cut them; if that fails, its own records are never
// written: a member that was not in the earlier flush cannot have its batch come back.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { copyStoreFiles } from './testing/crash-image.js'
import { event, rejection } from './testing/fixtures.js'
import { tempDir, type FsCall } from './testing/recording-fs.js'
import { twoJournaledSessions } from './testing/two-sessions.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isJournal = (call: FsCall) => call.path.includes('.bosun-journal-')

it('a flush refused because an earlier one\'s records are still in the journal: only the members of that earlier flush hear that their batch may come back', async () => {
  const live = join(dir, 'live')
  const { fs, store, a, b } = await twoJournaledSessions(live)

  // From now on the journal can be neither synced nor cut nor overwritten with zeros, nor
  // deleted (retired, which would leave no failed record to replay).
  let broken = true
  fs.fail = (call) => (broken && isJournal(call) && ['datasync', 'truncate', 'write', 'unlink'].includes(call.op) ? 'EIO' : undefined)
  a.append(event(1))
  expect((await rejection(a.flush())).details).toMatchObject({ rolledBack: false })
  // b's batch: written to b's file, cut off it again (its ftruncate works); its record is never
  // written, as the journal first tries to cut a's.
  const journalWrites = () => fs.calls.filter((call) => isJournal(call) && call.op === 'write').length
  const writes = journalWrites()
  b.append(event(1))
  const refused = await rejection(b.flush())
  expect(journalWrites()).toBe(writes + 1) // the zeros over a's records, which failed; no record of b
  expect(refused.details).toMatchObject({ rolledBack: true })
  expect(refused.message).not.toContain('may come back')

  const image = join(dir, 'image')
  await mkdir(image)
  await copyStoreFiles(live, image)
  const recovered = jsonlStore({ dir: image })
  const reopened = (await recovered.open('b'))!
  expect(reopened.events).toEqual([event(0)])
  await reopened.writer.close()
  await recovered.close()

  broken = false
  await Promise.all([a.flush(), b.flush()])
  await store.close()
})
