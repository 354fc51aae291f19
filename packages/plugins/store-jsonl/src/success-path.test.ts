// The success path of a flush makes the same file-system calls as before the rollback changes of
// q19a (the valid-length record, the journal's retirement): nothing is looked up per flush.
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { event, header } from './testing/fixtures.js'
import { recordingFs, tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

it.each([
  [false, ['stat s.jsonl', 'write s.jsonl', 'datasync s.jsonl']],
  [true, ['stat s.jsonl', 'write s.jsonl', 'write journal', 'datasync journal']],
])('(journal: %s) every call of three flushes after the first, in order: the same per flush', async (journal, perFlush) => {
  const fs = recordingFs(undefined, { writeSync: true })
  const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal })
  const { writer } = await store.create(header('s'))
  writer.append(event(0))
  await writer.flush() // the journal is created here
  fs.calls.length = 0
  for (let seq = 1; seq <= 3; seq++) {
    writer.append(event(seq))
    await writer.flush()
  }
  const calls = fs.calls.map((call) => `${call.op} ${call.path.includes('.bosun-journal-') ? 'journal' : call.path.slice(dir.length + 1)}`)
  expect(calls).toEqual(Array(3).fill(perFlush).flat())
  await store.close()
})
