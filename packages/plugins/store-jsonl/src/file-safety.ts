import type { Stats } from 'node:fs'
import { BosunError, ErrorCodes } from '@bosun/core'
import { errnoCode, type StoreFileHandle, type StoreFileStat } from './file-system.js'

/**
 * What the store opens in its folder must be a plain file with one name. A symbolic link there
 * could make it read or write a file anywhere (and one file reached under two names gets two
 * locks, so two writers); a FIFO or a device reads forever or never; a second name (hard link)
 * is a second lock path. Each is refused with UNSAFE_STORE_FILE, naming the file and what to do.
 */

/** An opened session file that passed the checks. */
export interface CheckedFile {
  /** `dev:ino`, the file's identity, when the file system reports it. */
  identity?: string
}

/**
 * Checks a session file just opened: a regular file with exactly one name. Resolves `'gone'`
 * when the file has no name left (deleted between the open and the fstat): there is no session.
 */
export async function checkOpenedFile(handle: StoreFileHandle, file: string, id: string): Promise<CheckedFile | 'gone'> {
  const pending = handle.stat()
  const stat: StoreFileStat = typeof (pending as { then?: unknown }).then === 'function' ? await pending : (pending as StoreFileStat)
  if (typeof stat.isFile === 'function' && !stat.isFile()) {
    const kind = specialKind(stat)
    throw unsafeFile(file, id, kind, `it is a ${kind}, not a regular file, so it cannot be a session (reading it could block or never end). Remove it, or move it out of the sessions folder.`)
  }
  if (stat.nlink === 0) return 'gone'
  if (stat.nlink !== undefined && stat.nlink > 1) {
    throw unsafeFile(
      file, id, 'hard link',
      `it has ${stat.nlink} names (hard links). A session file must have exactly one, so that the lock file beside it is the only lock of that file. ` +
        'Delete the other names, or replace the file with a copy of itself.',
    )
  }
  return stat.dev === undefined || stat.ino === undefined ? {} : { identity: `${stat.dev}:${stat.ino}` }
}

/**
 * The UNSAFE_STORE_FILE error for a failed open of a session file that a link or a special file
 * explains, else `undefined`. ELOOP (EMLINK on FreeBSD) is O_NOFOLLOW meeting a link; ENXIO is a
 * socket, or a FIFO opened for writing with no reader.
 */
export function refusedOpen(error: unknown, file: string, id: string): BosunError | undefined {
  switch (errnoCode(error)) {
    case 'ELOOP':
    case 'EMLINK':
      return unsafeFile(
        file, id, 'symbolic link',
        'it is a symbolic link, and the store does not follow links in its folder: a link could make it read or write a file outside the folder, ' +
          'and one file reached under two names could get two writers. If the link points to a session file, move that file here in its place; otherwise delete the link.',
      )
    case 'ENXIO':
      return unsafeFile(file, id, 'special file', 'it is a socket or a FIFO, not a regular file, so it cannot be a session. Remove it, or move it out of the sessions folder.')
    case 'EISDIR':
      return unsafeFile(file, id, 'directory', 'it is a directory, not a session file. Rename it or move it out of the sessions folder.')
    default:
      return undefined
  }
}

/** The UNSAFE_STORE_FILE error of a lock file that Bosun did not write: a link or a special file. */
export function unsafeLockFile(path: string, id: string, kind: string): BosunError {
  return unsafeOwnFile(`The lock file of session "${id}"`, 'lock file', path, id, kind)
}

/** The same for a session's record of its valid length (valid-length.ts). */
export function unsafeValidLengthFile(path: string, id: string, kind: string): BosunError {
  return unsafeOwnFile(`The record of session "${id}"'s valid length`, 'record', path, id, kind)
}

/** A file the store writes beside a session (`what`, a `noun` of Bosun's) is a link or a special file. */
function unsafeOwnFile(what: string, noun: string, path: string, id: string, kind: string): BosunError {
  return new BosunError(
    ErrorCodes.UNSAFE_STORE_FILE,
    `${what}, ${path}, is a ${kind}, not a ${noun} Bosun writes; the store neither follows nor reads it. ` +
      'Delete it, then open the session again.',
    { details: { sessionId: id, file: path, kind } },
  )
}

/** What a file that is not a regular one is, in words; `special file` when the stat cannot say. */
export function specialKind(stat: StoreFileStat): string {
  const s = stat as Partial<Stats>
  if (s.isSymbolicLink?.()) return 'symbolic link'
  if (s.isDirectory?.()) return 'directory'
  if (s.isFIFO?.()) return 'FIFO (named pipe)'
  if (s.isCharacterDevice?.()) return 'character device'
  if (s.isBlockDevice?.()) return 'block device'
  if (s.isSocket?.()) return 'socket'
  return 'special file'
}

function unsafeFile(file: string, id: string, kind: string, problem: string): BosunError {
  return new BosunError(ErrorCodes.UNSAFE_STORE_FILE, `Session "${id}": refusing ${file}: ${problem}`, {
    details: { sessionId: id, file, kind },
  })
}
