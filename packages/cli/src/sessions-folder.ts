import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { BosunError, ErrorCodes } from '@bosun/core'

/**
 * Fails with a STORE error (its `details.errno` the file system's code) unless bosun can create and
 * write session files in `dir`: the folder itself if it exists, else the nearest folder above it,
 * where it would be created. Nothing is created or written. `bosun serve` checks this before it
 * listens: the JSONL store touches its folder only when a session is listed or opened, so a folder
 * it cannot use let the host listen, then answer every request `500 internal-error`, the reason in
 * its log only.
 */
export async function requireWritableFolder(dir: string): Promise<void> {
  for (let current = dir; ; current = dirname(current)) {
    const found = await stat(current).catch((error: NodeJS.ErrnoException) => error)
    if (found instanceof Error && found.code === 'ENOENT' && dirname(current) !== current) continue
    if (found instanceof Error) throw unusable(dir, found)
    if (!found.isDirectory()) throw unusable(dir, Object.assign(new Error(`ENOTDIR: not a directory, ${current}`), { code: 'ENOTDIR' }))
    const denied = await access(current, constants.W_OK | constants.X_OK).then(() => undefined, (error: NodeJS.ErrnoException) => error)
    if (denied !== undefined) throw unusable(dir, denied)
    return
  }
}

function unusable(dir: string, error: NodeJS.ErrnoException): BosunError {
  return new BosunError(ErrorCodes.STORE, `Cannot keep sessions in ${dir}: ${error.message}`, {
    cause: error,
    details: { dir, ...(typeof error.code === 'string' ? { errno: error.code } : {}) },
  })
}
