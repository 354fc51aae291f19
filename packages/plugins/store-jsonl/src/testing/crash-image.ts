// Builds what a crash (power loss) can leave of a JSONL store's folder: each file cut to a length
// the test chooses, in a fresh folder with no lock files (their processes are gone).
import { copyFile, readdir, readFile, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isJournalName } from '../journal-format.js'
import { isValidLengthName } from '../valid-length.js'
import { isRemovalName } from '../removal-record.js'

/** The store journal files of `dir` (there is one per store that has written a batch). */
export async function journalFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter(isJournalName).map((name) => join(dir, name))
}

/** Copies every session file, journal, record of a valid length and record of a removal of `from` into `to`, as they are now. */
export async function copyStoreFiles(from: string, to: string): Promise<void> {
  for (const name of await readdir(from)) {
    if (name.endsWith('.jsonl') || isJournalName(name) || isValidLengthName(name) || isRemovalName(name)) await copyFile(join(from, name), join(to, name))
  }
}

/** Cuts `file` to `length` bytes and appends `zeros` NUL bytes (what a crash after the size grew leaves). */
export async function cutFile(file: string, length: number, zeros = 0): Promise<void> {
  await truncate(file, length)
  if (zeros > 0) await writeFile(file, Buffer.alloc(zeros), { flag: 'a' })
}

export const fileBytes = (file: string): Promise<Buffer> => readFile(file)
