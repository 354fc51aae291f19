// The journal's torn-round properties (journal-reuse, journal-zeros) crash a store the same way:
// acknowledged waves, then one more round written whose journal fdatasync never returns, and a
// copy of the folder taken then. Each property then tears the image's journal its own way.
import { statSync } from 'node:fs'
import { mkdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { jsonlStore } from '../store.js'
import { copyStoreFiles, cutFile, journalFiles } from './crash-image.js'
import { fileText, header, sessionFile } from './fixtures.js'
import { recordingFs, type FsCall } from './recording-fs.js'
import { waveSessions, type WaveSessions, type WaveStep } from './waves.js'

const isJournalCall = (call: FsCall) => call.path.includes('.bosun-journal-')

export interface HeldRound {
  sessions: WaveSessions
  /** Events of each session acknowledged before the last round. */
  ackedCounts: number[]
  /** The journal when the last round started: durable (every round before it returned from its fdatasync). */
  previous: Buffer
  /** The journal in the image: the last round written over `previous`. */
  imageJournal: string
  /** Cuts each session file of the image to its synced bytes and the fraction `cuts[i]` of the rest. */
  cutSessions(cuts: readonly number[]): Promise<void>
}

/** Runs `acked`, then `unacked` held at its journal fdatasync; the crash image is in `image`, the store closed. */
export async function heldRound(live: string, image: string, acked: readonly WaveStep[][], unacked: WaveStep[]): Promise<HeldRound> {
  const fs = recordingFs(undefined, { writeSync: true })
  // A session file's bytes are durable up to its size when its last fdatasync started.
  const durable = new Map<string, number>()
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let holding = false
  fs.hold = (call) => (holding && call.op === 'datasync' && isJournalCall(call) ? held : undefined)
  fs.fail = (call) => {
    if (call.op === 'datasync' && !isJournalCall(call)) durable.set(call.path, statSync(call.path).size)
    return undefined
  }
  const store = jsonlStore({ dir: live, fs, batchWindowMs: 10_000, journal: true })
  const sessions = await waveSessions(store)
  const { ids, appended, flushWave } = sessions
  for (const steps of acked) await Promise.all(flushWave(steps))
  const ackedCounts = appended.map((events) => events.length)
  const [journal] = await journalFiles(live)
  const previous = await readFile(journal!)

  // The last round: written (over the previous generation, or past a checkpoint at its start),
  // its fdatasync never returns.
  holding = true
  const reached = fs.next((call) => call.op === 'datasync' && isJournalCall(call))
  const pending = flushWave(unacked)
  await reached
  await mkdir(image)
  await copyStoreFiles(live, image)
  // What was synced at the crash (closing the store below syncs the rest).
  const synced = new Map(durable)
  release()
  await Promise.all(pending)
  await store.close()

  const cutSessions = async (cuts: readonly number[]) => {
    for (const [i, id] of ids.entries()) {
      const file = sessionFile(image, id)
      const size = (await stat(file)).size
      const from = synced.get(sessionFile(live, id)) ?? Buffer.byteLength(fileText(header(id), []))
      await cutFile(file, from + Math.floor(cuts[i]! * (size - from)))
    }
  }
  return { sessions, ackedCounts, previous, imageJournal: join(image, journal!.slice(live.length + 1)), cutSessions }
}
