// The store journal reuses its file (journal.ts): it grows ahead of its writes with zeros, so a
// flush overwrites instead of appending, and after a checkpoint the next generation is written
// from the start over the previous one. What a crash can leave of such a file is a torn
// overwrite: some sectors of the last, unacknowledged round new, the others still the previous
// generation's. The property below cuts it that way, across several generations.
import { readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { EXTEND_BYTES, StoreJournal, journalTuning, type JournalMember } from './journal.js'
import { decodeRecords, encodeRecord } from './journal-format.js'
import { heldRound } from './testing/held-round.js'
import { tempDir } from './testing/recording-fs.js'
import { SESSIONS, expectRecovered, wave } from './testing/waves.js'
import { nodeFileSystem } from './file-system.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(async () => {
  journalTuning.checkpointBytes = 4 * 1024 * 1024
  await cleanup()
})

const member = (): JournalMember => ({ syncFile: async () => {} })

describe('the journal file is reused', () => {
  it('grows ahead of its records with zeros: its size changes only when a flush needs more room, not at every flush', async () => {
    const journal = new StoreJournal(dir, nodeFileSystem)
    const writer = member()
    const sizes: number[] = []
    let offset = 0
    for (let flush = 0; flush < 200; flush++) {
      const bytes = Buffer.alloc(1500, 0x61)
      await journal.sync(journal.stage(writer, encodeRecord('s', 1, offset, bytes)))
      offset += bytes.length
      sizes.push((await stat(journal.path!)).size)
    }
    const changes = sizes.filter((size, i) => i === 0 || size !== sizes[i - 1]).length
    // 200 records of ~1.5 KB = ~300 KB: extents of 64, 128, 256 and 512 KiB.
    expect(sizes[0]).toBe(EXTEND_BYTES)
    expect(changes).toBeLessThanOrEqual(4)
    const { records, intactLength } = decodeRecords(await readFile(journal.path!))
    expect(records).toHaveLength(200)
    expect(sizes.at(-1)).toBeGreaterThan(intactLength)
    await journal.close()
  })

  it('after a checkpoint the next generation is written from the start over the previous one; the file is not cut', async () => {
    const journal = new StoreJournal(dir, nodeFileSystem, 100)
    const writer = member()
    await journal.sync(journal.stage(writer, encodeRecord('a', 1, 0, Buffer.alloc(60, 0x61))))
    await journal.sync(journal.stage(writer, encodeRecord('b', 1, 0, Buffer.alloc(60, 0x62))))
    const before = await readFile(journal.path!)
    // The checkpoint (size ≥ 100), then c at the start in generation 1.
    await journal.sync(journal.stage(writer, encodeRecord('c', 1, 0, Buffer.alloc(10, 0x63))))
    const after = await readFile(journal.path!)
    expect(after.length).toBe(before.length)
    expect(decodeRecords(after).records.map((r) => r.id)).toEqual(['c'])
    // b's record is still there, past c's, and is not read: it is generation 0.
    expect(after.includes(Buffer.alloc(60, 0x62))).toBe(true)
    await journal.sync(journal.stage(writer, encodeRecord('d', 1, 0, Buffer.alloc(10, 0x64))))
    expect(decodeRecords(await readFile(journal.path!)).records.map((r) => r.id)).toEqual(['c', 'd'])
    await journal.close()
  })
})

const SECTOR = 512

it('a crash during a round torn over an earlier generation, sector by sector: replay restores every acknowledged event exactly once, in order', async () => {
  // A checkpoint every ~2 KB: generations turn over every few rounds.
  journalTuning.checkpointBytes = 2048
  let run = 0
  await fc.assert(
    fc.asyncProperty(
      fc.array(wave, { minLength: 1, maxLength: 12 }), wave, fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: SESSIONS, maxLength: SESSIONS }),
      async (acked, unacked, sectorsNew, sessionCuts) => {
        const { sessions, ackedCounts, previous, imageJournal, cutSessions } = await heldRound(join(dir, `live-${run}`), join(dir, `image-${run++}`), acked, unacked)
        const image = dirname(imageJournal)

        // The journal: each sector the round changed is new or still the previous bytes.
        const written = await readFile(imageJournal)
        const torn = Buffer.from(written)
        for (let sector = 0; sector * SECTOR < torn.length; sector++) {
          if (sectorsNew[sector % sectorsNew.length]) continue
          const start = sector * SECTOR
          const old = previous.subarray(start, Math.min(start + SECTOR, torn.length))
          old.copy(torn, start)
          if (old.length < Math.min(SECTOR, torn.length - start)) torn.fill(0, start + old.length, Math.min(start + SECTOR, torn.length))
        }
        await writeFile(imageJournal, torn)
        // The session files: their synced bytes, and a random part of the rest.
        await cutSessions(sessionCuts)

        await expectRecovered(image, sessions, ackedCounts)
      },
    ),
    { numRuns: 40 },
  )
}, 180_000)
