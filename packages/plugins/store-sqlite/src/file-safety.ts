import { lstatSync, realpathSync, statSync, type Stats } from 'node:fs'
import { BosunError, ErrorCodes } from '@bosun/core'

/**
 * The files SQLite keeps beside the database. It refuses links there itself, with a bare
 * "unable to open database file"; checked first so that the error can say which file and why.
 */
const COMPANIONS = ['-wal', '-shm', '-journal'] as const

/** Names of the kinds of file that cannot hold a database, by the `Stats` test that finds them. */
const KINDS: ReadonlyArray<readonly [(stat: Stats) => boolean, string]> = [
  [(stat) => stat.isSymbolicLink(), 'symbolic link'],
  [(stat) => stat.isDirectory(), 'directory'],
  [(stat) => stat.isFIFO(), 'FIFO (named pipe)'],
  [(stat) => stat.isCharacterDevice(), 'character device'],
  [(stat) => stat.isBlockDevice(), 'block device'],
  [(stat) => stat.isSocket(), 'socket'],
]

/**
 * Refuses, before SQLite opens anything, a database path that is not a regular file — a FIFO, a
 * device or a folder, directly or behind a link (SQLite would fail with a bare I/O error, or
 * write its pages into /dev/null and fail only at fsync) — and a link or special file in place of
 * its `-wal`, `-shm` or `-journal` file. A link to a regular database file is followed, as
 * SQLite does: its locks are on the file itself, so two paths to it are still one database. A
 * check before the open, not an atomic one: it catches files planted beforehand.
 */
export function checkDatabaseFiles(file: string): void {
  let real = file
  const link = statOrUndefined(lstatSync, file)
  if (link !== undefined) {
    const target = statOrUndefined(statSync, file)
    if (target === undefined) {
      throw unsafe(file, file, 'symbolic link', 'it is a link to nothing: SQLite would create the database wherever it points. Delete the link, or point it at an existing database.')
    }
    if (!target.isFile()) {
      const kind = kindOf(target)
      throw unsafe(file, file, kind, `it is ${link.isSymbolicLink() ? `a link to a ${kind}` : `a ${kind}`}, not a regular file, so it cannot hold the database. Point "file" at a regular file.`)
    }
    real = realpathSync(file)
  }
  for (const suffix of COMPANIONS) {
    const companion = statOrUndefined(lstatSync, real + suffix)
    if (companion !== undefined && !companion.isFile()) {
      throw unsafe(
        file, real + suffix, kindOf(companion),
        `it is a ${kindOf(companion)}, where SQLite keeps the database's ${suffix.slice(1)} file (a regular file it creates itself). Delete it while no process uses the database.`,
      )
    }
  }
}

function kindOf(stat: Stats): string {
  return KINDS.find(([test]) => test(stat))?.[1] ?? 'special file'
}

/** The stat of `path`, or undefined when there is nothing there (ENOENT, ENOTDIR). */
function statOrUndefined(stat: (path: string) => Stats, path: string): Stats | undefined {
  try {
    return stat(path)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw error
  }
}

function unsafe(database: string, path: string, kind: string, problem: string): BosunError {
  return new BosunError(ErrorCodes.UNSAFE_STORE_FILE, `SQLite store ${database}: refusing ${path}: ${problem}`, {
    details: { file: path, database, kind },
  })
}
