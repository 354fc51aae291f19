// What the store refuses to open in its folder: links planted as session files, special files
// (FIFOs, devices, folders) and files with a second name. Real links, FIFOs and devices.
import { existsSync } from 'node:fs'
import { link, mkdir, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BosunError, createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from './store.js'
import { event, fileText, header, rejection, sessionFile } from './testing/fixtures.js'
import { recordingFs, tempDir } from './testing/recording-fs.js'
import { canMakeFifo, makeFifo, releaseFifoReaders } from './testing/special-files.js'

let dir: string
let root: string
let cleanup: () => Promise<void>
const fifos: string[] = []
beforeEach(async () => {
  ;({ dir: root, cleanup } = await tempDir())
  dir = join(root, 'sessions')
  await mkdir(dir)
})
afterEach(async () => {
  for (const fifo of fifos.splice(0)) releaseFifoReaders(fifo)
  await cleanup()
})

const unsafe = (kind: string, file: string) => (error: unknown) =>
  BosunError.is(error, 'UNSAFE_STORE_FILE') && error.details.kind === kind && error.details.file === file && error.message.includes(file)

/** A valid session file for `id` outside the sessions folder: the worst target, it even parses. */
async function outsideSession(id: string): Promise<{ file: string; bytes: Buffer }> {
  await mkdir(join(root, 'elsewhere'), { recursive: true })
  const file = join(root, 'elsewhere', `${id}.jsonl`)
  await writeFile(file, fileText(header(id), [event(0)]))
  return { file, bytes: await readFile(file) }
}

describe('a symbolic link planted as a session file', () => {
  it('is refused by open, read and createAgent, and the file it points to is neither read nor written', async () => {
    const target = await outsideSession('s')
    await symlink(target.file, sessionFile(dir, 's'))
    const store = jsonlStore({ dir })
    await expect(store.open('s')).rejects.toSatisfy(unsafe('symbolic link', sessionFile(dir, 's')))
    await expect(store.read!('s')).rejects.toSatisfy(unsafe('symbolic link', sessionFile(dir, 's')))
    await expect(createAgent({ model: scripted(), store, sessionId: 's' })).rejects.toSatisfy(unsafe('symbolic link', sessionFile(dir, 's')))
    expect(await readFile(target.file)).toEqual(target.bytes)
    // The message says what to do.
    const error = await rejection(store.open('s'))
    expect(error.message).toMatch(/does not follow links.*move that file here in its place; otherwise delete the link/)
    // Nothing was left locked: once the link is replaced by the file, the session opens.
    await unlink(sessionFile(dir, 's'))
    await writeFile(sessionFile(dir, 's'), target.bytes)
    const opened = (await store.open('s'))!
    expect(opened.events).toEqual([event(0)])
    await store.close()
  })

  it('to /dev/zero is refused at once instead of being read forever', async () => {
    await symlink('/dev/zero', sessionFile(dir, 'zero'))
    const store = jsonlStore({ dir })
    await expect(store.open('zero')).rejects.toSatisfy(unsafe('symbolic link', sessionFile(dir, 'zero')))
    await expect(store.read!('zero')).rejects.toSatisfy(unsafe('symbolic link', sessionFile(dir, 'zero')))
    await store.close()
  })

  it('that dangles is refused too, and create() does not write through it', async () => {
    const target = join(root, 'elsewhere', 'planted.jsonl')
    await symlink(target, sessionFile(dir, 's'))
    const store = jsonlStore({ dir })
    await expect(store.open('s')).rejects.toSatisfy(unsafe('symbolic link', sessionFile(dir, 's')))
    await expect(store.create(header('s'))).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_EXISTS'))
    expect(existsSync(target)).toBe(false)
    await store.close()
  })

  it('is left out of list(), which lists the rest', async () => {
    const target = await outsideSession('linked')
    await symlink(target.file, sessionFile(dir, 'linked'))
    await symlink('/dev/zero', sessionFile(dir, 'zero'))
    const store = jsonlStore({ dir })
    await (await store.create(header('real'))).writer.close()
    expect((await store.list()).map((summary) => summary.id)).toEqual(['real'])
    await store.close()
  })
})

describe.skipIf(!canMakeFifo)('a FIFO named like a session', () => {
  it('is refused by open and read without blocking, and list() leaves it out instead of hanging', async () => {
    const fifo = sessionFile(dir, 'pipe')
    fifos.push(fifo)
    makeFifo(fifo)
    const store = jsonlStore({ dir })
    await (await store.create(header('real'))).writer.close()
    expect((await store.list()).map((summary) => summary.id)).toEqual(['real'])
    await expect(store.read!('pipe')).rejects.toSatisfy(unsafe('FIFO (named pipe)', fifo))
    await expect(store.open('pipe')).rejects.toSatisfy(unsafe('FIFO (named pipe)', fifo))
    const error = await rejection(store.open('pipe'))
    expect(error.message).toMatch(/not a regular file.*Remove it, or move it out of the sessions folder/)
    await store.close()
  })

  it('as the sessions folder itself fails create() and list() with STORE instead of blocking', async () => {
    const fifo = join(root, 'not-a-folder')
    fifos.push(fifo)
    makeFifo(fifo)
    const store = jsonlStore({ dir: fifo })
    await expect(store.create(header('s'))).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
    await expect(store.list()).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
    await store.close()
  })
})

describe('other files that are not one plain session file', () => {
  it('a folder named like a session is refused by open with UNSAFE_STORE_FILE', async () => {
    await mkdir(sessionFile(dir, 'folder'))
    const store = jsonlStore({ dir })
    await expect(store.open('folder')).rejects.toSatisfy(unsafe('directory', sessionFile(dir, 'folder')))
    await expect(store.read!('folder')).rejects.toSatisfy(unsafe('directory', sessionFile(dir, 'folder')))
    await store.close()
  })

  it('a session file with a second name (hard link) is refused under both names: two lock paths would make two writers', async () => {
    const other = join(root, 'other')
    await mkdir(other)
    const store = jsonlStore({ dir })
    await (await store.create(header('s'))).writer.close()
    await link(sessionFile(dir, 's'), sessionFile(other, 's'))
    const elsewhere = jsonlStore({ dir: other })
    const outcomes = await Promise.allSettled([store.open('s'), elsewhere.open('s')])
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected')
      expect((outcome as PromiseRejectedResult).reason).toSatisfy((e: unknown) => BosunError.is(e, 'UNSAFE_STORE_FILE') && e.details.kind === 'hard link')
    }
    expect(((outcomes[0] as PromiseRejectedResult).reason as Error).message).toMatch(/has 2 names \(hard links\)/)
    // One name left: the session opens again.
    await rm(sessionFile(other, 's'))
    const opened = (await store.open('s'))!
    await opened.writer.close()
    await Promise.all([store.close(), elsewhere.close()])
  })

  it('the sessions folder itself may be a link (it is configuration): create, open and list work through it', async () => {
    const linked = join(root, 'linked-sessions')
    await symlink(dir, linked)
    const store = jsonlStore({ dir: linked })
    const created = await store.create(header('s'))
    created.writer.append(event(0))
    await created.writer.close()
    expect((await store.list()).map((summary) => summary.id)).toEqual(['s'])
    expect((await store.open('s'))?.events).toEqual([event(0)])
    await store.close()
    expect(await readFile(sessionFile(dir, 's'), 'utf8')).toBe(fileText(header('s'), [event(0)]))
  })

  it('a session file deleted the instant it was created: create() fails with STORE instead of resolving for a file with no name', async () => {
    const fs = recordingFs()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    fs.hold = (call) => (call.op === 'stat' ? held : undefined)
    const store = jsonlStore({ dir, fs })
    const creating = store.create(header('s'))
    await fs.next((call) => call.op === 'stat')
    await unlink(sessionFile(dir, 's'))
    release()
    const error = await rejection(creating)
    expect(error.code).toBe('STORE')
    expect(error.message).toContain('deleted as it was being created')
    fs.hold = () => undefined
    await (await store.create(header('s'))).writer.close() // nothing left locked
    await store.close()
  })

  it('a session file deleted under its writer: the next batch is refused with STALE_WRITER instead of going to a file no one can open', async () => {
    const store = jsonlStore({ dir, batchWindowMs: 10_000 })
    const { writer } = await store.create(header('s'))
    writer.append(event(0))
    await writer.flush()
    await unlink(sessionFile(dir, 's'))
    writer.append(event(1))
    const failure = await writer.flush().catch((error: unknown) => error)
    expect(BosunError.is(failure, 'STALE_WRITER')).toBe(true)
    expect((failure as Error).message).toContain('was deleted or replaced')
    await expect(writer.close()).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    await store.close()
  })
})
