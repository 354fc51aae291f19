// The record of a session file's valid length (valid-length.ts) is a name in the sessions folder,
// like a session file: a symbolic link planted there must not make the store write through it
// (the store never follows links in its folder, file-safety.ts), and a custom file system gets
// only the open flags StoreFileSystem documents ('r', 'r+', 'wx').
import { readFile, readdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { event, fileText, header, readSession, rejection } from './testing/fixtures.js'
import { syncThenCutAndZerosFail, tempDir } from './testing/recording-fs.js'
import { oneSession } from './testing/one-session.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

it('a link named like the record is replaced, not written through; the record still fences off the rejected event', async () => {
  const { live, fs, store, writer } = await oneSession(dir, false)
  const victim = join(dir, 'victim.txt')
  await writeFile(victim, 'not the store\'s\n')
  await symlink(victim, join(live, '.bosun-valid-s'))
  const flags: string[] = []
  const open = fs.open
  fs.open = (path, flag, mode) => (path.includes('.bosun-valid-') && flags.push(flag), open(path, flag, mode))
  // The batch's fdatasync fails, then the cut and the zeros: the valid length is recorded.
  fs.fail = syncThenCutAndZerosFail((call) => call.path.endsWith('/s.jsonl'))
  writer.append(event(1))
  expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: true })
  // Before: the victim held the record's JSON, and the open used 'w' (O_TRUNC, following the link).
  expect(await readFile(victim, 'utf8')).toBe('not the store\'s\n')
  expect(flags.every((flag) => ['r', 'r+', 'wx'].includes(flag))).toBe(true)
  expect(await readdir(live)).toContain('.bosun-valid-s')

  // The record is obeyed: another store reads the session without the rejected event.
  expect((await jsonlStore({ dir: live }).read!('s'))!.events).toEqual([event(0)])

  // The retry cuts the file and deletes the record, then writes.
  fs.fail = () => undefined
  await writer.close()
  await store.close()
  expect(await readdir(live)).not.toContain('.bosun-valid-s')
  expect(await readSession(live, 's')).toBe(fileText(header('s'), [event(0), event(1)]))
})
