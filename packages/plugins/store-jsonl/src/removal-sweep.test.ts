// The sweep of removal records (removal-record.ts) deletes a record once none of the journals it
// names exists. It must judge that under the session's lock, from the folder as it is then: a
// remove() that finished after the sweep listed the folder may have written a record naming a
// journal made after that listing (R13's review of 932dcca).
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { nodeFileSystem, type StoreFileSystem } from './file-system.js'
import { JOURNAL_PREFIX } from './journal-format.js'
import { removalPath, sweepRemovalRecords, writeRemovalRecord } from './removal-record.js'
import { sessionFile } from './testing/fixtures.js'
import { tempDir } from './testing/recording-fs.js'

let dir = ''
let cleanup: () => Promise<void> = async () => {}
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

it('keeps a record whose journal appeared after the sweep listed the folder, and deletes it once that journal is gone', async () => {
  const journal = join(dir, JOURNAL_PREFIX + randomUUID())
  await writeFile(journal, '')
  const file = sessionFile(dir, 's')
  await writeRemovalRecord(nodeFileSystem, dir, file, 1234)
  expect(existsSync(removalPath(file))).toBe(true)
  // The sweep's first listing predates the journal (and so the record naming it); later ones see both.
  let listings = 0
  const lateListing: StoreFileSystem = {
    ...nodeFileSystem,
    readdir: async (path) => {
      const names = await nodeFileSystem.readdir(path)
      return listings++ === 0 ? names.filter((name) => !name.startsWith(JOURNAL_PREFIX)) : names
    },
  }
  await sweepRemovalRecords(lateListing, dir)
  expect(existsSync(removalPath(file))).toBe(true)
  await rm(journal)
  await sweepRemovalRecords(nodeFileSystem, dir)
  expect(existsSync(removalPath(file))).toBe(false)
})
