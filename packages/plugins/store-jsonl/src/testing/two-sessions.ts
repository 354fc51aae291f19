// Two sessions, `a` and `b`, of a store with the journal in `live`, written through a recording
// file system (synchronous writes, as the default one), each with event 0 acknowledged.
import { jsonlStore } from '../store.js'
import { event, header } from './fixtures.js'
import { recordingFs } from './recording-fs.js'

export async function twoJournaledSessions(live: string) {
  const fs = recordingFs(undefined, { writeSync: true })
  const store = jsonlStore({ dir: live, fs, batchWindowMs: 10_000, journal: true })
  // Equal records: a journal write that fails half-way leaves the first record whole.
  const a = (await store.create(header('a'))).writer
  const b = (await store.create(header('b'))).writer
  a.append(event(0))
  b.append(event(0))
  await Promise.all([a.flush(), b.flush()])
  return { fs, store, a, b }
}
