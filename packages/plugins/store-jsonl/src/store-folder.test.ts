// The sessions folder a store cannot create: every path ends in the store's error, in bounded time.
// `fs.mkdir(path, { recursive: true })` (Node 20) never returned for /proc/nope/s — procfs answers
// ENOENT to a mkdir whose parent exists, and Node's mkdir -p went on creating the parent — so
// `bosun run` with such a "dir" spun at full CPU, printing nothing. The only time bound here is
// Vitest's test timeout: before the fix, the /proc test timed out.
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { header, rejection } from './testing/fixtures.js'
import { recordingFs, tempDir } from './testing/recording-fs.js'
import { printRejection, runAsAnotherUser } from './testing/as-another-user.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

/** create() in a store whose folder is `folder`: the STORE error it rejects with. */
async function createIn(folder: string) {
  const store = jsonlStore({ dir: folder })
  try {
    return await rejection(store.create(header('s')))
  } finally {
    await store.close()
  }
}

it('a folder under /proc, where no folder can be made, fails at once naming the folder that exists and what to do', async () => {
  const error = await createIn('/proc/nope/s')
  expect(error.code).toBe('STORE')
  expect(error.message).toBe(
    'Could not create the sessions folder /proc/nope/s: /proc exists, but creating /proc/nope in it failed with ENOENT ' +
      "(ENOENT: no such file or directory, mkdir '/proc/nope'): that folder accepts no new folders " +
      '(a virtual file system such as /proc or /sys, or it was removed meanwhile). Give the store a "dir" on an ordinary disk.',
  )
  expect(error.details).toEqual({ dir: '/proc/nope/s', path: '/proc/nope', errno: 'ENOENT' })
  expect(error.cause).toMatchObject({ code: 'ENOENT' })
})

it('a file in the path is named as the part that is not a folder', async () => {
  await writeFile(join(dir, 'notes.txt'), 'not a folder\n')
  const folder = join(dir, 'notes.txt', 'a', 'sessions')
  const error = await createIn(folder)
  expect(error.message).toBe(
    `Could not create the sessions folder ${folder}: ${join(dir, 'notes.txt')} is not a folder (ENOTDIR: not a directory, mkdir '${join(dir, 'notes.txt', 'a')}'). ` +
      'Move that file away, or give the store a "dir" whose every part is a folder.',
  )
  expect(error.details).toEqual({ dir: folder, path: join(dir, 'notes.txt'), errno: 'ENOTDIR' })
})

it('a "dir" that is itself a file is refused before anything is written beside it', async () => {
  const folder = join(dir, 'notes.txt')
  await writeFile(folder, 'not a folder\n')
  const error = await createIn(folder)
  expect(error.message).toBe(`Could not create the sessions folder ${folder}: ${folder} is not a folder (ENOTDIR: not a directory, open '${folder}'). Move that file away, or give the store a "dir" whose every part is a folder.`)
  expect(error.details).toMatchObject({ path: folder, errno: 'ENOTDIR' })
  expect(await readdir(dir)).toEqual(['notes.txt'])
})

it('the missing folders are created, and made durable: each new folder and the parent of the first are fsynced', async () => {
  const folder = join(dir, 'a', 'b', 'c')
  const fs = recordingFs()
  const store = jsonlStore({ dir: folder, fs, journal: false })
  await (await store.create(header('s'))).writer.close()
  await store.close()
  expect(await readdir(folder)).toContain('s.jsonl')
  const before = fs.calls.findIndex((call) => call.path === join(folder, 's.jsonl'))
  const synced = fs.calls.slice(0, before).filter((call) => call.op === 'open').map((call) => call.path)
  expect(synced).toEqual([folder, join(dir, 'a', 'b'), join(dir, 'a'), dir])
})

it('a read-only folder, for a user who may not write it, says permission denied and what to do', async () => {
  await chmod(dir, 0o755)
  const locked = join(dir, 'locked')
  await mkdir(locked)
  await chmod(locked, 0o555)
  const folder = join(locked, 'a', 'sessions')
  const result = runAsAnotherUser(printRejection(folder, "store.create({ id: 's', version: 1, createdAt: 0 })"), dir)
  expect(result.stderr).toBe('')
  expect(JSON.parse(result.stdout)).toEqual({
    code: 'STORE',
    message:
      `Could not create the sessions folder ${folder}: creating ${join(locked, 'a')} failed with EACCES ` +
      `(EACCES: permission denied, mkdir '${join(locked, 'a')}'): the user running this process may not create folders there. ` +
      `Create ${folder} for that user, or give the store a "dir" it can create.`,
    details: { dir: folder, path: join(locked, 'a'), errno: 'EACCES' },
  })
  expect(await readdir(locked)).toEqual([])
})
