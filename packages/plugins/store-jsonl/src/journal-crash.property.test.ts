// Property: whatever a crash leaves of the store journal and of the session files — each cut at
// a random byte past what was durable, with or without a NUL tail — recovery gives every session
// every acknowledged event, in order, nothing duplicated, no torn line.
import { mkdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import fc from 'fast-check'
import { jsonlStore } from './store.js'
import { decodeRecords } from './journal-format.js'
import { copyStoreFiles, cutFile, journalFiles } from './testing/crash-image.js'
import { fileText, header, sessionFile } from './testing/fixtures.js'
import { recordingFs, tempDir, type FsCall } from './testing/recording-fs.js'
import { SESSIONS, expectRecovered, wave, waveSessions } from './testing/waves.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isJournalSync = (call: FsCall) => call.op === 'datasync' && call.path.includes('.bosun-journal-')
/** Where a file is cut, as a fraction of what is past its durable length, and how many NUL bytes follow. */
const cut = fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), zeros: fc.constantFrom(0, 0, 17, 4096) })

it('after a crash cut at a random byte of the journal and of each session file, replay restores every acknowledged event exactly once, in order', async () => {
  let run = 0
  await fc.assert(
    fc.asyncProperty(
      fc.array(wave, { minLength: 1, maxLength: 8 }), fc.option(wave, { nil: undefined }), fc.array(cut, { minLength: SESSIONS + 1, maxLength: SESSIONS + 1 }),
      async (acked, unacked, cuts) => {
        const live = join(dir, `live-${run}`)
        const image = join(dir, `image-${run++}`)
        const fs = recordingFs(undefined, { writeSync: true })
        const store = jsonlStore({ dir: live, fs, batchWindowMs: 10_000, journal: true })
        const sessions = await waveSessions(store)
        const { ids, appended, flushWave } = sessions
        for (const steps of acked) await Promise.all(flushWave(steps))
        const ackedCounts = appended.map((events) => events.length)
        const [journal] = await journalFiles(live)
        // Its acknowledged records; past them, zeros the journal grew by ahead of its writes.
        const journalDurable = decodeRecords(await readFile(journal!)).intactLength

        // A round whose journal fdatasync never returns: its bytes are written, not acknowledged.
        let release!: () => void
        const held = new Promise<void>((resolve) => (release = resolve))
        fs.hold = (call) => (isJournalSync(call) ? held : undefined)
        const pending: Promise<void>[] = []
        if (unacked) {
          const reached = fs.next(isJournalSync)
          pending.push(...flushWave(unacked))
          await reached
        }
        await mkdir(image)
        await copyStoreFiles(live, image)
        release()
        await Promise.all(pending)
        await store.close()

        // The crash: every file keeps its durable bytes and a random part of the rest.
        const files = [...ids.map((id) => sessionFile(image, id)), join(image, journal!.slice(live.length + 1))]
        const durable = [...ids.map((id) => Buffer.byteLength(fileText(header(id), []))), journalDurable]
        for (const [i, file] of files.entries()) {
          const size = (await stat(file)).size
          await cutFile(file, durable[i]! + Math.floor(cuts[i]!.at * (size - durable[i]!)), cuts[i]!.zeros)
        }

        // Twice: a second open of the recovered folder finds the same.
        for (let reopen = 0; reopen < 2; reopen++) await expectRecovered(image, sessions, ackedCounts)
      },
    ),
    { numRuns: 50 },
  )
}, 180_000)
