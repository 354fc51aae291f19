// Reopening an idle session (the host seals it, the next request opens it again): a sidecar that
// is already the one of this very log is left as it is when the writer closes without appending —
// no read of the log's last line, no temporary file, no rename (summary-file.ts, summaryIsCurrent).
// A sidecar that is not (none, an older one, a different fold) is written at close as before.
import { readFile, stat, unlink, writeFile } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createUserMessage } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { jsonlStore } from './store.js'
import { summaryPath } from './summary-file.js'
import { header, sessionFile } from './testing/fixtures.js'
import { countingFs } from './testing/counting-fs.js'
import { tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

/** Turns with a prompt each: every list field moves. */
const turns = (from: number, count: number): SessionEvent[] =>
  Array.from({ length: count }, (_, i) => {
    const seq = from + i
    const [type, data] = seq % 2 === 0 ? ['turn/start', { turn: seq / 2 + 1 }] : ['user/message', createUserMessage(`prompt ${seq}`, { id: `u${seq}` })]
    return Object.freeze({ seq, time: 1_700_000_000_000 + seq, type, data }) as SessionEvent
  })

const sidecar = () => summaryPath(sessionFile(dir, 's'))

/** Creates session `s` with `count` events and closes it: its writer leaves the sidecar of the whole log. */
async function created(count: number): Promise<void> {
  const store = jsonlStore({ dir, batchWindowMs: 0 })
  const stored = await store.create(header('s'))
  for (const event of turns(0, count)) stored.writer.append(event)
  await store.close()
}

/** Opens `s` on a counting file system, appends `more` events, closes it; what the file system saw. */
async function reopened(more = 0) {
  const fs = countingFs()
  const store = jsonlStore({ dir, batchWindowMs: 0, fs })
  const stored = (await store.open('s'))!
  for (const event of turns(stored.events.length, more)) stored.writer.append(event)
  await stored.writer.close()
  await store.close()
  return fs
}

describe('reopening a session whose sidecar is current', () => {
  it('closing it without an append writes no sidecar, reads the log once and syncs nothing', async () => {
    await created(40)
    const before = await readFile(sidecar(), 'utf8')
    const { size } = await stat(sessionFile(dir, 's'))
    for (let round = 0; round < 3; round++) {
      const fs = await reopened()
      expect(fs.renames).toBe(0)
      // Nothing was recovered, cut or appended: nothing to make durable.
      expect(fs.syncs).toBe(0)
      // The open's one read of the log, and nothing read back at close.
      expect(fs.wholeReads).toBe(1)
      expect(fs.logBytes).toBe(size)
      expect(await readFile(sidecar(), 'utf8')).toBe(before)
    }
  })

  it('appending after such a reopen writes the sidecar of the longer log at close', async () => {
    await created(40)
    const fs = await reopened(3)
    expect(fs.renames).toBe(1)
    // The batch went through the store journal; closing makes the file itself durable.
    expect(fs.syncs).toBeGreaterThan(0)
    const kept = JSON.parse(await readFile(sidecar(), 'utf8')) as { byteOffset: number; fold: { length: number } }
    expect(kept.byteOffset).toBe((await stat(sessionFile(dir, 's'))).size)
    expect(kept.fold.length).toBe(43)
  })
})

describe('reopening a session whose sidecar is not current: written at close, as before', () => {
  it('no sidecar', async () => {
    await created(40)
    const expected = await readFile(sidecar(), 'utf8')
    await unlink(sidecar())
    expect((await reopened()).renames).toBe(1)
    expect(await readFile(sidecar(), 'utf8')).toBe(expected)
  })

  it('an older sidecar (the log grew after it: a writer killed before its close)', async () => {
    await created(40)
    const older = await readFile(sidecar(), 'utf8')
    await reopened(6)
    const expected = await readFile(sidecar(), 'utf8')
    await writeFile(sidecar(), older)
    expect((await reopened()).renames).toBe(1)
    expect(await readFile(sidecar(), 'utf8')).toBe(expected)
  })

  it('a sidecar of this offset whose fold differs', async () => {
    await created(40)
    const expected = await readFile(sidecar(), 'utf8')
    const changed = JSON.parse(expected) as { fold: { turns: number } }
    changed.fold.turns += 1
    await writeFile(sidecar(), JSON.stringify(changed))
    expect((await reopened()).renames).toBe(1)
    expect(await readFile(sidecar(), 'utf8')).toBe(expected)
  })
})
