import { basename, dirname, join } from 'node:path'
import { BosunError } from '@bosun/core'
import { refusedOpen, specialKind, unsafeValidLengthFile } from './file-safety.js'
import { FILE_SUFFIX } from './format.js'
import { errnoCode, syncDirectory, type StoreFileSystem } from './file-system.js'
import { writeFully } from './file-writes.js'
import { atStep, step } from './steps.js'

/**
 * A session file's valid length, kept durably beside it in `<dir>/.bosun-valid-<id>` while the
 * file may hold, past that length, the lines of a batch whose flush was rejected and whose rollback
 * could neither cut them off nor overwrite them with zeros (tail.ts). Without it those lines, whole,
 * would be read back by the next `open()` or after a crash: events the caller was told had failed.
 * `open()` and `read()` take the file as that long (the header crc must match: not a session
 * created again under the same id); `open()` cuts the file there, then deletes the marker.
 *
 * The writer deletes it (and fsyncs the folder) once it has cut the file, before it writes past
 * that length again: a marker left behind would cut acknowledged events off at the next open.
 * A leading dot: never a session's file, a lock or a journal (journal-format.ts), and list()
 * leaves it out even for an id ending in `.jsonl` (no session id starts with a dot).
 */
const VALID_LENGTH_PREFIX = '.bosun-valid-'

export interface ValidLength {
  /** Bytes of the file that are the session; what follows is a rejected batch. */
  length: number
  /** crc32 of the file's header line: the marker applies to that file only. */
  headerCrc: number
}

/** The marker's path for the session file `file` (`<dir>/<id>.jsonl`). */
export function validLengthPath(file: string): string {
  const id = basename(file, FILE_SUFFIX)
  // Windows drops a name's trailing dots: `a.`'s record would be `a`'s. A session id may end with
  // one dot (never two: no ".."), and never holds a `~`, so this `~` keeps every name apart.
  return join(dirname(file), VALID_LENGTH_PREFIX + id + (id.endsWith('.') ? '~' : ''))
}

/**
 * The marker's name, as errors give it (`details.step`, messages): relative to the store's folder,
 * beside the session file they name. Error details may reach a client (a host's answer); the
 * server's directory layout must not.
 */
export function validLengthName(file: string): string {
  return basename(validLengthPath(file))
}

export function isValidLengthName(name: string): boolean {
  return name.startsWith(VALID_LENGTH_PREFIX)
}

/**
 * Writes the marker durably: the file (fsynced), then the folder (its name). Errors name their step.
 * Created O_EXCL ('wx') after deleting whatever has the name: an open with 'w' would follow a
 * symbolic link planted there and truncate the file it points to (the store follows no link in
 * its folder, file-safety.ts), and 'wx' is a flag StoreFileSystem documents. Whatever had the
 * name is no marker this writer needs: an earlier write of it failed (its flush was rejected as
 * possibly coming back), and a stale one was deleted by the open() that gave the writer.
 */
export async function writeValidLength(fs: StoreFileSystem, file: string, value: ValidLength): Promise<void> {
  const path = validLengthPath(file)
  const name = validLengthName(file)
  await unlinkValidLength(fs, file)
  const handle = await step(`open of ${name}`, () => fs.open(path, 'wx', 0o600))
  try {
    const line = Buffer.from(JSON.stringify({ bosun: 'valid-length', ...value }) + '\n', 'utf8')
    await step(`write of ${name}`, () => writeFully(handle, line, 0))
    await step(`fsync of ${name}`, () => handle.sync())
  } finally {
    await handle.close().catch(() => {})
  }
  await step(`fsync of the directory (recording ${name})`, () => syncDirectory(fs, dirname(file)))
}

/** Deletes the marker durably (unlink, then the folder's fsync); no marker is not an error. */
export async function removeValidLength(fs: StoreFileSystem, file: string): Promise<void> {
  await unlinkValidLength(fs, file)
  await step(`fsync of the directory (deleting ${validLengthName(file)})`, () => syncDirectory(fs, dirname(file)))
}

/**
 * Deletes the marker, not durably: for create(), whose folder fsync follows. A marker there
 * outlived a session file deleted by hand; a session created again with an equal header line
 * (same crc) would have its acknowledged events cut off by it at the next open().
 */
export async function unlinkValidLength(fs: StoreFileSystem, file: string): Promise<void> {
  await step(`unlink of ${validLengthName(file)}`, () => unlinkIfThere(fs, validLengthPath(file)))
}

async function unlinkIfThere(fs: StoreFileSystem, path: string): Promise<void> {
  try {
    await fs.unlink(path)
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
  }
}

/**
 * The marker of session `id`'s `file`, if there is one. A torn or unreadable one (a crash while it
 * was written, before the flush it was for was answered) is no marker: that flush may come back
 * like any flush a crash interrupted. A link or a special file under its name is refused
 * (UNSAFE_STORE_FILE): the store never writes one, and follows or reads none in its folder.
 */
export async function readValidLength(fs: StoreFileSystem, file: string, id: string): Promise<ValidLength | undefined> {
  const path = validLengthPath(file)
  let text: string
  try {
    // 'r' opens O_NOFOLLOW | O_NONBLOCK (file-system.ts): a link fails, a FIFO does not block.
    const handle = await fs.open(path, 'r')
    try {
      const stat = await handle.stat()
      if (typeof stat.isFile === 'function' && !stat.isFile()) throw unsafeValidLengthFile(path, id, specialKind(stat))
      text = (await handle.readFile()).toString('utf8')
    } finally {
      await handle.close().catch(() => {})
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    if (BosunError.is(error)) throw error
    const refused = refusedOpen(error, path, id)
    if (refused) throw unsafeValidLengthFile(path, id, String(refused.details?.kind))
    throw atStep(error, `read of ${validLengthName(file)}`)
  }
  try {
    const value = JSON.parse(text) as Partial<ValidLength> & { bosun?: unknown }
    if (value.bosun === 'valid-length' && Number.isSafeInteger(value.length) && Number.isSafeInteger(value.headerCrc)) {
      return { length: value.length!, headerCrc: value.headerCrc! }
    }
  } catch {
    // Torn: see above.
  }
  return undefined
}

/** `bytes` (the file's content) cut to the marker's length when the marker is for this file and the file is longer. */
export function withinValidLength(bytes: Buffer, valid: ValidLength | undefined, headerCrc: number | undefined): Buffer {
  if (valid === undefined || valid.headerCrc !== headerCrc || bytes.length <= valid.length) return bytes
  return bytes.subarray(0, valid.length)
}
