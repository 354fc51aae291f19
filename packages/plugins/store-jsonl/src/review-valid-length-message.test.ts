// A flush rejected after its rollback fell back to the record of the file's valid length
// (valid-length.ts) says so: the batch's lines are still in the file, past a length the record
// fences off — not "the file is back at its last durable length", which a reader of the file
// itself (cat, an older Bosun) would find untrue.
import { afterEach, beforeEach, expect, it } from 'vitest'
import { event, rejection } from './testing/fixtures.js'
import { syncThenCutAndZerosFail, tempDir } from './testing/recording-fs.js'
import { oneSession } from './testing/one-session.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

it.each([false, true])('(journal: %s) the rejection names the record and says what open() does with it', async (journal) => {
  const { fs, store, writer } = await oneSession(dir, journal)
  fs.fail = syncThenCutAndZerosFail((call) => (journal ? call.path.includes('.bosun-journal-') && call.op === 'datasync' : false) || call.path.endsWith('/s.jsonl'))
  writer.append(event(1))
  const error = await rejection(writer.flush())
  expect(error.details).toMatchObject({ rolledBack: true })
  // Before: 'The file is back at its last durable length', with the batch's lines still in it.
  expect(error.message).not.toContain('back at its last durable length')
  // By its name, beside the file the message names (review-error-names.test.ts).
  expect(error.message).toContain('recorded beside it, in .bosun-valid-s:')
  expect(error.message).toMatch(/next flush\(\) cuts the file back before retrying/)
  fs.fail = () => undefined
  await store.close()
})
