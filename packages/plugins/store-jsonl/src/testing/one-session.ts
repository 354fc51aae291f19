// Session `s` of a store in `<dir>/live`, written through a recording file system (synchronous
// writes, as the default one), with event 0 acknowledged: where the rollback tests start.
import { join } from 'node:path'
import { jsonlStore } from '../store.js'
import { event, header } from './fixtures.js'
import { recordingFs } from './recording-fs.js'

export async function oneSession(dir: string, journal: boolean) {
  const live = join(dir, 'live')
  const fs = recordingFs(undefined, { writeSync: true })
  const store = jsonlStore({ dir: live, fs, batchWindowMs: 10_000, journal })
  const { writer } = await store.create(header('s'))
  writer.append(event(0))
  await writer.flush()
  return { live, fs, store, writer }
}
