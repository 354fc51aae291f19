// remove(id): what it deletes, in which order it makes that durable, and who it refuses
// (SESSION_LOCKED while a writer of the session is open here, in another store of this process or
// in another live process; a dead process's stale lock does not stop it).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { jsonlStore } from './store.js'
import { event, header, rejection, sessionFile } from './testing/fixtures.js'
import { recordingFs, tempDir } from './testing/recording-fs.js'
import { SUMMARY_EVERY_BYTES } from './summary-file.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const lockOf = (id: string) => `${sessionFile(dir, id)}.lock`

/** A session `id` with `count` events, closed. */
async function written(store: ReturnType<typeof jsonlStore>, id: string, count: number, text?: string): Promise<void> {
  const { writer } = await store.create(header(id))
  for (let seq = 0; seq < count; seq++) writer.append(event(seq, text))
  await writer.close()
}

it('deletes the log, its list summary, its record of a valid length and its lock file; the other sessions keep theirs', async () => {
  const store = jsonlStore({ dir })
  // Long enough for a summary beside the log.
  await written(store, 'gone', 3, 'x'.repeat(SUMMARY_EVERY_BYTES))
  await written(store, 'kept', 2)
  // A record of a valid length left beside it, as a failed rollback leaves one.
  await writeFile(join(dir, '.bosun-valid-gone'), JSON.stringify({ bosun: 'valid-length', length: 1, headerCrc: 1 }))
  const before = await readdir(dir)
  expect(before).toEqual(expect.arrayContaining(['gone.jsonl', 'gone.summary.json', '.bosun-valid-gone', 'kept.jsonl']))

  expect(await store.remove!('gone')).toBe(true)
  const after = await readdir(dir)
  // Left: the record of its removal, while the store journal that may hold its records exists. It holds no word of the session.
  expect(after.filter((name) => name.includes('gone'))).toEqual(['.bosun-removed-gone'])
  const record = JSON.parse(await readFile(join(dir, '.bosun-removed-gone'), 'utf8'))
  expect(record).toEqual({ bosun: 'removed', headerCrcs: [expect.any(Number)], journals: [expect.stringMatching(/^\.bosun-journal-/)] })
  expect(after).toEqual(expect.arrayContaining(['kept.jsonl']))
  const kept = (await store.open('kept'))!
  expect(kept.events).toHaveLength(2)
  await kept.writer.close()
  await store.close()
  // That journal is deleted at the close: the next store's first open deletes the record.
  const next = jsonlStore({ dir })
  await (await next.open('kept'))!.writer.close()
  expect((await readdir(dir)).filter((name) => name.includes('gone'))).toEqual([])
  await next.close()
})

it('makes the deletion durable before it resolves: the folder is fsynced after the last unlink, the lock file included', async () => {
  const fs = recordingFs()
  const store = jsonlStore({ dir, fs, journal: false })
  await written(store, 's', 2)
  const from = fs.calls.length
  let lockAtSync: boolean | undefined
  // At the folder's fsync: the lock file (deleted outside the store's file system) must be gone already.
  fs.hold = (call) => {
    if (call.op === 'open' && call.path === dir && fs.calls.slice(from).some((c) => c.op === 'unlink' && c.path === sessionFile(dir, 's'))) {
      lockAtSync = existsSync(lockOf('s'))
    }
    return undefined
  }
  expect(await store.remove!('s')).toBe(true)
  const calls = fs.calls.slice(from)
  const unlinked = calls.findIndex((call) => call.op === 'unlink' && call.path === sessionFile(dir, 's'))
  const synced = calls.findLastIndex((call) => call.op === 'sync')
  expect(unlinked).toBeGreaterThanOrEqual(0)
  // The last sync of the removal is the folder's (opened as a directory), after the unlink.
  expect(calls.findLastIndex((call) => call.op === 'open' && call.path === dir)).toBeGreaterThan(unlinked)
  expect(synced).toBeGreaterThan(unlinked)
  expect(calls[synced]!.path).toBe(dir)
  expect(lockAtSync).toBe(false)
  await store.close()
})

it('resolves false for a session that is not stored, and refuses an invalid id and a closed store', async () => {
  const store = jsonlStore({ dir: join(dir, 'not-yet') })
  expect(await store.remove!('nothing')).toBe(false)
  // No folder was made for it, and no lock file left.
  await expect(readdir(join(dir, 'not-yet'))).rejects.toMatchObject({ code: 'ENOENT' })
  expect((await rejection(store.remove!('../x'))).code).toBe('INVALID_SESSION_ID')
  await store.close()
  expect((await rejection(store.remove!('nothing'))).code).toBe('STORE')
})

it('refuses a session open for writing in this store, then removes it once its writer closed; nothing is lost meanwhile', async () => {
  const store = jsonlStore({ dir })
  const { writer } = await store.create(header('s'))
  writer.append(event(0))
  const refused = await rejection(store.remove!('s'))
  expect(refused.code).toBe('SESSION_LOCKED')
  expect(refused.message).toContain('cannot be removed')
  expect(refused.message).toContain('this process')
  // The writer goes on, and what it wrote is there.
  writer.append(event(1))
  await writer.close()
  const reopened = (await store.open('s'))!
  expect(reopened.events).toHaveLength(2)
  expect((await rejection(store.remove!('s'))).code).toBe('SESSION_LOCKED')
  await reopened.writer.close()
  expect(await store.remove!('s')).toBe(true)
  expect(await store.open('s')).toBeUndefined()
  await store.close()
})

it('refuses a session another store of this process has open for writing', async () => {
  const first = jsonlStore({ dir })
  const second = jsonlStore({ dir })
  const { writer } = await first.create(header('s'))
  expect((await rejection(second.remove!('s'))).code).toBe('SESSION_LOCKED')
  await writer.close()
  expect(await second.remove!('s')).toBe(true)
  await Promise.all([first.close(), second.close()])
})

it('refuses a session whose lock a live process holds, naming it; the session stays whole', async () => {
  // A live process until the test kills it (not one that ends after a while: on a slow machine its lock would turn stale mid-test).
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' })
  try {
    const store = jsonlStore({ dir })
    await written(store, 's', 2)
    await writeFile(lockOf('s'), JSON.stringify({ pid: child.pid, host: hostname(), token: 'theirs' }))
    const refused = await rejection(store.remove!('s'))
    expect(refused.code).toBe('SESSION_LOCKED')
    expect(refused.details).toMatchObject({ sessionId: 's', pid: child.pid })
    expect(refused.message).toContain(`process ${child.pid} on ${hostname()}`)
    // Their lock and the session are untouched.
    expect(JSON.parse(await readFile(lockOf('s'), 'utf8'))).toMatchObject({ pid: child.pid })
    expect((await store.read!('s'))!.events).toHaveLength(2)
    await store.close()
  } finally {
    child.kill()
  }
})

it('takes over the stale lock a dead process left, as open() does, and removes the session', async () => {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  const store = jsonlStore({ dir })
  await written(store, 's', 2)
  await writeFile(lockOf('s'), JSON.stringify({ pid: Number(gone.stdout), host: hostname(), token: 'old' }))
  expect(await store.remove!('s')).toBe(true)
  expect(await readdir(dir)).not.toContain('s.jsonl.lock')
  expect(await store.has!('s')).toBe(false)
  await store.close()
})

it('a failed unlink is a STORE error naming the step and what to do; the session is still there, whole, and a second try removes it', async () => {
  const fs = recordingFs()
  const store = jsonlStore({ dir, fs })
  await written(store, 's', 2)
  fs.fail = (call) => (call.op === 'unlink' && call.path === sessionFile(dir, 's') ? 'EACCES' : undefined)
  const failed = await rejection(store.remove!('s'))
  expect(failed).toBeInstanceOf(BosunError)
  expect(failed.code).toBe('STORE')
  expect(failed.details).toMatchObject({ sessionId: 's', step: 'unlink', errno: 'EACCES' })
  expect(failed.message).toContain('remove it again')
  // The lock was released: it opens, whole.
  const opened = (await store.open('s'))!
  expect(opened.events).toHaveLength(2)
  await opened.writer.close()
  fs.fail = () => undefined
  expect(await store.remove!('s')).toBe(true)
  await store.close()
})
