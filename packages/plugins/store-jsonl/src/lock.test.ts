// One writer per session: the lock file beside it, taken over from a process that is gone,
// refused while its owner lives; readers (a fork) that do not take it and cut nothing.
import { spawn, spawnSync } from 'node:child_process'
import { appendFile, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { BosunError, createAgent, definePlugin, forkSession, type SessionEvent } from '@bosun/core'
import { jsonlStore } from './store.js'
import { event, header, sessionFile } from './testing/fixtures.js'
import { tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

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
