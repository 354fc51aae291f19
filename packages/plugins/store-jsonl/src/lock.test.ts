// One writer per session: the lock file beside it, taken over from a process that is gone,
// refused while its owner lives; readers (a fork) that do not take it and cut nothing.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { appendFile, mkdir, readFile, rename, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { BosunError, createAgent, definePlugin, forkSession, type SessionEvent } from '@bosun/core'
import { jsonlStore } from './store.js'
import { event, header, sessionFile } from './testing/fixtures.js'
import { tempDir } from './testing/recording-fs.js'
import { canMakeFifo, makeFifo, releaseFifoReaders } from './testing/special-files.js'

let dir: string
let cleanup: () => Promise<void>
const fifos: string[] = []
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(async () => {
  for (const fifo of fifos.splice(0)) releaseFifoReaders(fifo)
  await cleanup()
})

const lockOf = (id: string) => `${sessionFile(dir, id)}.lock`

it('open() of a session another writer holds is refused before anything is read or cut, naming the holder', async () => {
  const first = jsonlStore({ dir })
  const a = await first.create(header('s'))
  a.writer.append(event(0))
  await a.writer.flush()
  // A batch being written: a line without its newline yet.
  await appendFile(sessionFile(dir, 's'), '{"seq":1,"time":1,"type":"test/value","da')
  const before = await readFile(sessionFile(dir, 's'))
  const second = jsonlStore({ dir })
  const refused = await second.open('s').catch((error: unknown) => error)
  expect(BosunError.is(refused, 'SESSION_LOCKED')).toBe(true)
  expect((refused as Error).message).toMatch(/is open for writing in this process .*delete .*s\.jsonl\.lock/)
  expect(await readFile(sessionFile(dir, 's'))).toEqual(before)
  await second.close()
  await first.close()
})

it('a lock left by a process that is gone is taken over', async () => {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  const store = jsonlStore({ dir })
  await (await store.create(header('s'))).writer.close()
  await writeFile(lockOf('s'), JSON.stringify({ pid: Number(gone.stdout), host: hostname(), token: 'old' }))
  const opened = (await store.open('s'))!
  expect(JSON.parse(await readFile(lockOf('s'), 'utf8'))).toMatchObject({ pid: process.pid })
  await opened.writer.close()
  await expect(stat(lockOf('s'))).rejects.toMatchObject({ code: 'ENOENT' })
  await store.close()
})

it('a lock held by a live process is respected, and its pid named', async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
  try {
    const store = jsonlStore({ dir })
    await (await store.create(header('s'))).writer.close()
    await writeFile(lockOf('s'), JSON.stringify({ pid: child.pid, host: hostname(), token: 'theirs' }))
    const refused = await store.open('s').catch((error: unknown) => error)
    expect(BosunError.is(refused, 'SESSION_LOCKED')).toBe(true)
    expect((refused as BosunError).details).toMatchObject({ sessionId: 's', pid: child.pid })
    expect((refused as Error).message).toContain(`process ${child.pid} on ${hostname()}`)
    await store.close()
  } finally {
    child.kill()
  }
})

it('a fork reads a session another store is writing, without the lock and without cutting its half-written batch', async () => {
  const writing = jsonlStore({ dir })
  const a = await writing.create(header('parent'))
  const boundary = (seq: number, type: string, data: object) => Object.freeze({ seq, time: 1, type, data: Object.freeze(data) }) as SessionEvent
  a.writer.append(boundary(0, 'turn/start', { turn: 1 }))
  a.writer.append(boundary(1, 'turn/end', { turn: 1, reason: { kind: 'completed' } }))
  await a.writer.flush()
  await appendFile(sessionFile(dir, 'parent'), '{"seq":2,"ti')
  const before = await readFile(sessionFile(dir, 'parent'))
  const other = jsonlStore({ dir })
  const child = await forkSession(other, 'parent', { id: 'child' })
  expect(child.events.map((e) => e.type)).toEqual(['turn/start', 'turn/end', 'session/end-seed'])
  await child.writer.close()
  expect(await readFile(sessionFile(dir, 'parent'))).toEqual(before)
  await other.close()
  await writing.close()
})

it('a createAgent that fails (a plugin setup throws) leaves the session unlocked for the next try', async () => {
  const store = jsonlStore({ dir })
  const broken = definePlugin({ name: 'broken', setup: () => { throw new Error('setup failed') } })
  const model = scripted()
  await expect(createAgent({ model, store, sessionId: 's', plugins: [broken] })).rejects.toSatisfy((e) => BosunError.is(e, 'PLUGIN_SETUP_FAILED'))
  const agent = await createAgent({ model, store, sessionId: 's' })
  await agent.close()
  await store.close()
})

it('several stores taking over the same stale lock at once: exactly one wins, the others are refused', async () => {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  const setup = jsonlStore({ dir })
  await (await setup.create(header('s'))).writer.close()
  await writeFile(lockOf('s'), JSON.stringify({ pid: Number(gone.stdout), host: hostname(), token: 'old' }))
  const stores = Array.from({ length: 6 }, () => jsonlStore({ dir }))
  const outcomes = await Promise.allSettled(stores.map((store) => store.open('s')))
  const opened = outcomes.filter((outcome) => outcome.status === 'fulfilled')
  expect(opened).toHaveLength(1)
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') expect(BosunError.is(outcome.reason, 'SESSION_LOCKED')).toBe(true)
  }
  await expect(stat(`${lockOf('s')}.takeover`)).rejects.toMatchObject({ code: 'ENOENT' })
  await Promise.all([...stores, setup].map((store) => store.close()))
})

it('an empty lock file (its process died creating it) is respected while fresh, taken over once old', async () => {
  const store = jsonlStore({ dir })
  await (await store.create(header('s'))).writer.close()
  await writeFile(lockOf('s'), '')
  await expect(store.open('s')).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_LOCKED'))
  const old = new Date(Date.now() - 60_000)
  await utimes(lockOf('s'), old, old)
  const opened = (await store.open('s'))!
  expect(JSON.parse(await readFile(lockOf('s'), 'utf8'))).toMatchObject({ pid: process.pid })
  await opened.writer.close()
  await store.close()
})

describe('one writer per file, whatever path reaches it', () => {
  it('a second store of this process whose folder is a link to the first one\'s is refused, not handed the lock as stale', async () => {
    const linked = join(dir, 'linked')
    await mkdir(join(dir, 'real'))
    await symlink(join(dir, 'real'), linked)
    const first = jsonlStore({ dir: join(dir, 'real') })
    const a = await first.create(header('s'))
    const second = jsonlStore({ dir: linked })
    await expect(second.open('s')).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_LOCKED') && e.details.pid === process.pid)
    a.writer.append(event(0))
    await a.writer.flush()
    await Promise.all([first.close(), second.close()])
  })

  it('a session file moved to another folder while open cannot get a second writer in this process', async () => {
    await Promise.all([mkdir(join(dir, 'a')), mkdir(join(dir, 'b'))])
    const first = jsonlStore({ dir: join(dir, 'a') })
    const a = await first.create(header('s'))
    await rename(sessionFile(join(dir, 'a'), 's'), sessionFile(join(dir, 'b'), 's'))
    const second = jsonlStore({ dir: join(dir, 'b') })
    const refused = await second.open('s').catch((error: unknown) => error)
    expect(BosunError.is(refused, 'SESSION_LOCKED')).toBe(true)
    expect((refused as Error).message).toMatch(/already open for writing in this process under another path/)
    await a.writer.close()
    // Released with the writer: the file opens at its new place.
    await (await second.open('s'))!.writer.close()
    await Promise.all([first.close(), second.close()])
  })
})

describe('a lock file that Bosun did not write', () => {
  const unsafeLock = (id: string) => (error: unknown) =>
    BosunError.is(error, 'UNSAFE_STORE_FILE') && error.details.file === lockOf(id) && error.message.includes(`Delete it`)

  it('a link to another file is neither followed, read nor written; open() says to delete it', async () => {
    const store = jsonlStore({ dir })
    await (await store.create(header('s'))).writer.close()
    const session = await readFile(sessionFile(dir, 's'))
    const secret = join(dir, 'secret.txt')
    await writeFile(secret, 'TOKEN=do-not-read\n')
    const old = new Date(Date.now() - 60_000)
    await utimes(secret, old, old) // an old target must not pass for a stale lock either
    await symlink(secret, lockOf('s'))
    await expect(store.open('s')).rejects.toSatisfy(unsafeLock('s'))
    expect(await readFile(secret, 'utf8')).toBe('TOKEN=do-not-read\n')
    expect(await readFile(sessionFile(dir, 's'))).toEqual(session)
    await store.close()
  })

  it('a dangling link: nothing is created where it points', async () => {
    const store = jsonlStore({ dir })
    await (await store.create(header('s'))).writer.close()
    const target = join(dir, 'planted-target')
    await symlink(target, lockOf('s'))
    await expect(store.open('s')).rejects.toSatisfy(unsafeLock('s'))
    expect(existsSync(target)).toBe(false)
    await store.close()
  })

  it('a link to /dev/zero is refused at once instead of being read forever', async () => {
    const store = jsonlStore({ dir })
    await (await store.create(header('s'))).writer.close()
    await symlink('/dev/zero', lockOf('s'))
    await expect(store.open('s')).rejects.toSatisfy(unsafeLock('s'))
    await store.close()
  })

  it.skipIf(!canMakeFifo)('a FIFO is refused at once instead of blocking the open', async () => {
    const store = jsonlStore({ dir })
    await (await store.create(header('s'))).writer.close()
    fifos.push(lockOf('s'))
    makeFifo(lockOf('s'))
    await expect(store.open('s')).rejects.toSatisfy(unsafeLock('s'))
    await store.close()
  })
})

it('a lock written before this machine last booted is taken over, even if its pid is alive now', async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
  try {
    const store = jsonlStore({ dir })
    await (await store.create(header('s'))).writer.close()
    const boot = '00000000-0000-4000-8000-000000000000'
    await writeFile(lockOf('s'), JSON.stringify({ pid: child.pid, host: hostname(), token: 'old boot', boot }))
    const ownBoot = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => undefined)
    if (ownBoot === undefined) {
      // No boot id on this platform: the live pid is all there is to go by.
      await expect(store.open('s')).rejects.toMatchObject({ code: 'SESSION_LOCKED' })
    } else {
      const opened = (await store.open('s'))!
      expect(JSON.parse(await readFile(lockOf('s'), 'utf8'))).toMatchObject({ pid: process.pid, boot: ownBoot.trim() })
      await opened.writer.close()
    }
    await store.close()
  } finally {
    child.kill()
  }
})
