// A failed batch whose rollback fails too: the bytes the rollback could not cut (from the store
// journal, or from the session file) must not come back after a crash, since the flush that
// wrote them was rejected as rolled back. A crash here is a copy of the folder as it is (every
// written byte reached the disk: the worst case for this), opened by a fresh store.
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { decodeRecords } from './journal-format.js'
import { copyStoreFiles, journalFiles } from './testing/crash-image.js'
import { event, fileText, header, readSession, rejection } from './testing/fixtures.js'
import { recordingFs, tempDir, type FsCall, type FsOp } from './testing/recording-fs.js'
import { twoJournaledSessions } from './testing/two-sessions.js'
import { oneSession as sessionWithEvent0 } from './testing/one-session.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isJournal = (call: FsCall) => call.path.includes('.bosun-journal-')

/** Fails the first call of each listed kind once (`journal`: of the store journal, `file`: of a session file). */
function failOnce(...faults: [FsOp, 'journal' | 'file'][]): (call: FsCall) => string | undefined {
  const left = [...faults]
  return (call) => {
    const index = left.findIndex(([op, where]) => op === call.op && (where === 'journal') === isJournal(call))
    if (index < 0) return undefined
    left.splice(index, 1)
    return 'EIO'
  }
}

/** Copies the live folder as it is now into a fresh one: what a crash at this moment can leave. */
async function crash(live: string, name = 'image'): Promise<string> {
  const image = join(dir, name)
  await mkdir(image)
  await copyStoreFiles(live, image)
  return image
}

async function recoveredEvents(image: string, id: string) {
  const store = jsonlStore({ dir: image })
  const { events, writer } = (await store.open(id))!
  await writer.close()
  await store.close()
  return events
}

/** Session `s` in `<dir>/live` (testing/one-session.ts), event 0 acknowledged. */
const oneSession = (journal: boolean) => sessionWithEvent0(dir, journal)

describe('the store journal: a failed flush whose cut back fails too', () => {
  it.each([
    ['its fdatasync fails', 'datasync'],
    ['its write fails half-way', 'write'],
  ] as const)('%s, then the journal\'s ftruncate: a crash before the next flush does not replay the rejected batches', async (_, op) => {
    const live = join(dir, 'live')
    const { fs, store, a, b } = await twoJournaledSessions(live)
    const [journal] = await journalFiles(live)
    const committed = decodeRecords(await readFile(journal!)).records.length

    fs.fail = failOnce([op, 'journal'], ['truncate', 'journal'])
    a.append(event(1))
    b.append(event(1))
    const errors = await Promise.all([rejection(a.flush()), rejection(b.flush())])
    for (const error of errors) expect(error.code).toBe('STORE')
    // Each session file was rolled back, and the journal holds no record of the failed flush.
    for (const id of ['a', 'b']) expect(await readSession(live, id)).toBe(fileText(header(id), [event(0)]))
    expect(decodeRecords(await readFile(journal!)).records).toHaveLength(committed)

    const image = await crash(live)
    for (const id of ['a', 'b']) expect(await recoveredEvents(image, id)).toEqual([event(0)])

    // The live store goes on: the retry writes the queued events through the same journal.
    await Promise.all([a.flush(), b.flush()])
    await store.close()
    const reopened = jsonlStore({ dir: live })
    for (const id of ['a', 'b']) expect((await reopened.open(id))!.events).toEqual([event(0), event(1)])
    await reopened.close()
  })

  it('a journal that can be neither cut nor overwritten nor retired: the rejection says the batch may come back, and no flush writes to that journal until it is cut', async () => {
    const { live, fs, store, writer } = await oneSession(true)

    // The flush's write fails, then the ftruncate, the overwrite with zeros (its fdatasync) and the
    // journal's deletion (retiring it). The step is the write's ('fdatasync of the store journal' before q19a).
    fs.fail = failOnce(['datasync', 'journal'], ['truncate', 'journal'], ['write', 'journal'], ['unlink', 'journal'])
    writer.append(event(1))
    const error = await rejection(writer.flush())
    expect(error.details).toMatchObject({ step: 'write of the store journal', rolledBack: false })
    expect(error.message).toContain('may come back after a crash')

    // While the journal cannot be cut, a flush writes nothing to it and is refused the same way.
    const journalWrites = () => fs.calls.filter((call) => call.op === 'write' && isJournal(call)).length
    const before = journalWrites()
    fs.fail = failOnce(['truncate', 'journal'], ['write', 'journal'], ['unlink', 'journal'])
    const refused = await rejection(writer.flush())
    expect(refused.details).toMatchObject({ rolledBack: false })
    // The one journal write of that flush is the failed overwrite with zeros, no record.
    expect(journalWrites()).toBe(before + 1)
    expect(await readSession(live, 's')).toBe(fileText(header('s'), [event(0)]))

    // Once the journal can be cut, the retry goes through.
    await writer.flush()
    await store.close()
    const reopened = jsonlStore({ dir: live })
    expect((await reopened.open('s'))!.events).toEqual([event(0), event(1)])
    await reopened.close()
  })

  it('a journal kept at close for recovery (a session file could not be synced, the journal could not be retired) is cut back first: recovery does not replay the failed flush', async () => {
    const { live, fs, store, writer } = await oneSession(true)
    const [journal] = await journalFiles(live)

    // The journal can be neither cut nor zeroed through the flush and close's two retries; the
    // session file cannot be synced at close, so the journal is kept. At the journal's close, the cut works.
    let cuts = 0
    fs.fail = (call) => {
      // Nor can the journal be retired (deleted): its failed records stay until a cut works.
      if (call.op === 'unlink' && isJournal(call)) return 'EIO'
      if (call.op === 'datasync' && isJournal(call) && cuts === 0) return 'EIO'
      if (call.op === 'truncate' && isJournal(call)) return ++cuts <= 3 ? 'EIO' : undefined
      if (call.op === 'write' && isJournal(call) && cuts > 0 && cuts <= 3) return 'EIO'
      // The session file's own fdatasync at close (not the one of a rollback, right after its ftruncate).
      if (call.op === 'datasync' && !isJournal(call) && cuts === 3 && fs.calls.at(-2)?.op !== 'truncate') return 'EIO'
      return undefined
    }
    writer.append(event(1))
    expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: false })
    await expect(store.close()).rejects.toMatchObject({ code: 'STORE' })
    expect(cuts).toBe(4)
    expect(await journalFiles(live)).toEqual([journal])
    expect(await recoveredEvents(live, 's')).toEqual([event(0)])
  })
})

describe('a session file whose rollback fails', () => {
  it.each([
    ['without the journal: its fdatasync fails', false, ['datasync', 'file']],
    ['with the journal: the journal\'s fdatasync fails', true, ['datasync', 'journal']],
  ] as const)('%s, then its ftruncate: a crash before the next batch does not bring the rejected events back', async (_, journal, first) => {
    const { live, fs, store, writer } = await oneSession(journal)

    fs.fail = failOnce(first as [FsOp, 'journal' | 'file'], ['truncate', 'file'])
    writer.append(event(1))
    writer.append(event(2))
    const error = await rejection(writer.flush())
    expect(error.details).toMatchObject({ rolledBack: true })

    const image = await crash(live)
    expect(await recoveredEvents(image, 's')).toEqual([event(0)])
    expect(await readSession(image, 's')).toBe(fileText(header('s'), [event(0)]))

    // The next batch cuts the file back first, then writes the queued events and the new one.
    writer.append(event(3))
    await writer.flush()
    expect(await readSession(live, 's')).toBe(fileText(header('s'), [0, 1, 2, 3].map((seq) => event(seq))))
    await store.close()
  })
})
