import { dirname } from 'node:path'
import { BosunError, ErrorCodes } from '@bosun/core'
import { errnoCode, syncDirectory, type StoreFileSystem } from './file-system.js'

/**
 * Creating the store's folder (`mkdir -p`), in steps that always end. Not `fs.mkdir(dir,
 * { recursive: true })`: Node 20's loops for ever on a path such as /proc/nope/s (procfs answers
 * ENOENT to a mkdir whose parent exists, and Node goes back to creating the parent), and a store
 * with such a "dir" spun at full CPU without a word. Here each folder is created with a plain
 * mkdir: up from `dir` to the first that exists, then down, one mkdir per missing folder, and
 * whatever fails (ENOENT, ENOTDIR, EACCES, EROFS…) is the store's STORE error, saying which folder
 * could not be made and what to do.
 */

/** `dir` and its missing parents created, made durable: every folder created is fsynced, and so is the parent of the first. */
export async function ensureDirectory(fs: StoreFileSystem, dir: string): Promise<void> {
  // Up from `dir` until a folder is created or exists; `missing`: the folders below it, nearest to `dir` first.
  const missing: string[] = []
  let path = dir
  let top: string
  for (;;) {
    const outcome = await tryMkdir(fs, path)
    if (outcome === 'created') {
      top = path
      break
    }
    if (outcome === 'exists') {
      if (path === dir) return checkIsFolder(fs, dir)
      top = missing.at(-1)!
      break
    }
    // ENOENT: its parent is missing; ENOTDIR: a part of the path is not a folder. Go up to find which.
    const code = errnoCode(outcome)
    if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(path) === path) throw folderError(dir, path, outcome)
    missing.push(path)
    path = dirname(path)
  }
  // Down: each missing folder, from the top, in a folder that now exists; one mkdir each, so this ends
  // whatever the file system answers. (/proc answers ENOENT again: the folder refuses new folders.)
  for (const folder of missing.reverse()) {
    const outcome = await tryMkdir(fs, folder)
    if (outcome !== 'created' && outcome !== 'exists') throw folderError(dir, folder, outcome, dirname(folder))
  }
  // The folders created (the topmost is `top`), from `dir` up, then the parent of `top`: its new entry.
  const last = dirname(top)
  for (let current = dir; ; current = dirname(current)) {
    try {
      await syncDirectory(fs, current)
    } catch (error) {
      throw folderError(dir, current, error, undefined, 'fsync of')
    }
    if (current === last || dirname(current) === current) break
  }
}

/** One plain mkdir: `'created'`, `'exists'` (as a folder or not), or the system error it failed with. */
async function tryMkdir(fs: StoreFileSystem, path: string): Promise<unknown> {
  try {
    await fs.mkdir(path, { recursive: false })
    return 'created'
  } catch (error) {
    // Another process may have created it meanwhile: as good as created.
    return errnoCode(error) === 'EEXIST' ? 'exists' : error
  }
}

/** `dir` exists: it must be a folder (a file there fails later anyway, at a lock file, with less to say). */
async function checkIsFolder(fs: StoreFileSystem, dir: string): Promise<void> {
  if (!fs.openDirectory) return
  let handle
  try {
    handle = await fs.openDirectory(dir)
  } catch (error) {
    throw folderError(dir, dir, error)
  }
  await handle.close().catch(() => {})
}

/**
 * The STORE error for the sessions folder `dir`, which could not be made because `error` befell
 * `path` (a folder to create, or `dir` existing as something else). `parent`: `path`'s parent,
 * known to exist (a folder, or the file ENOTDIR means). `details.errno` is the system error's code, which the CLI turns into advice on
 * the setting that named the folder.
 */
function folderError(dir: string, path: string, error: unknown, parent?: string, action = 'creating'): BosunError {
  const code = errnoCode(error)
  const why = `(${(error as Error)?.message ?? String(error)})`
  const problem =
    code === 'ENOTDIR' && parent !== undefined
      ? `${parent} is not a folder ${why}. Move that file away, or give the store a "dir" whose every part is a folder.`
      : code === 'ENOTDIR' && path === dir
        ? `${dir} is not a folder ${why}. Move that file away, or give the store a "dir" whose every part is a folder.`
        : code === 'ENOENT' && parent !== undefined
          ? `${parent} exists, but creating ${path} in it failed with ENOENT ${why}: that folder accepts no new folders ` +
            '(a virtual file system such as /proc or /sys, or it was removed meanwhile). Give the store a "dir" on an ordinary disk.'
          : `${action} ${path} failed${code ? ` with ${code}` : ''} ${why}${advice(code, dir)}`
  return new BosunError(ErrorCodes.STORE, `Could not create the sessions folder ${dir}: ${problem}`, {
    // `path`: the folder that could not be made, or the file standing where a folder should be.
    cause: error, details: { dir, path: code === 'ENOTDIR' && parent !== undefined ? parent : path, ...(code ? { errno: code } : {}) },
  })
}

/** What to do, by the system error's code. */
function advice(code: string | undefined, dir: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `: the user running this process may not create folders there. Create ${dir} for that user, or give the store a "dir" it can create.`
    case 'EROFS':
      return ': that file system is read-only. Give the store a "dir" on a writable disk.'
    case 'ENOSPC':
    case 'EDQUOT':
      return ': the disk (or the quota) is full. Free some space, or give the store a "dir" on another disk.'
    default:
      return `. Check that path, or give the store another "dir".`
  }
}
