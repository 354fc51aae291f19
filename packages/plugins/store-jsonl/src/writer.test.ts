// Write-behind: batching, flush, durable creation, background failures and stale writers.
import { spawnSync } from 'node:child_process'
import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BosunError } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { jsonlStore } from './store.js'
import { event, fileText, header, readSession, sessionFile, sleep } from './testing/fixtures.js'
import { recordingFs, tempDir, type FsCall } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => event(from + i))
const writesAndSyncs = (calls: FsCall[]) => calls.filter((c) => c.op === 'write' || c.op === 'datasync' || c.op === 'sync')

describe('batching', () => {
  it('writes 50 appends followed by one flush with exactly one write and one fdatasync', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: false })
    const { writer } = await store.create(header('s'))
    fs.calls.length = 0
    for (const e of range(0, 50)) writer.append(e)
    await writer.flush()
    expect(writesAndSyncs(fs.calls).map((c) => c.op)).toEqual(['write', 'datasync'])
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), range(0, 50)))
    await store.close()
  })

  it('coalesces appends made within the window into one batch, written when the window ends', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs, batchWindowMs: 20, journal: false })
    const { writer } = await store.create(header('s'))
    fs.calls.length = 0
    const synced = fs.next((c) => c.op === 'datasync')
    writer.append(event(0))
    await Promise.resolve()
    writer.append(event(1))
    writer.append(event(2))
    await synced
    expect(fs.count('write')).toBe(1)
    await writer.flush() // already durable: nothing more to write
    expect(fs.count('write')).toBe(1)
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), range(0, 3)))
    await store.close()
  })

  it('flush() drains at once instead of waiting for a 10 s window', async () => {
    // The window's timer never fires (faked, never advanced): flush() resolves only if it does not
    // wait for it. A race against a real 1 s timer lost to a slow fdatasync on a busy disk.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const store = jsonlStore({ dir, batchWindowMs: 10_000 })
      const { writer } = await store.create(header('s'))
      writer.append(event(0))
      await writer.flush()
      expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0)]))
      await store.close()
    } finally {
      vi.useRealTimers()
    }
  })

  it('keeps at most one batch in flight; appends made meanwhile form the next batch', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: false })
    const { writer } = await store.create(header('s'))
    fs.calls.length = 0
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    fs.hold = (call) => (call.op === 'datasync' && fs.count('datasync') === 1 ? held : undefined)
    writer.append(event(0))
    const first = writer.flush()
    await fs.next((c) => c.op === 'datasync')
    writer.append(event(1))
    const second = writer.flush()
    await sleep(20)
    expect(fs.count('write')).toBe(1) // the second batch waits for the first
    release()
    await Promise.all([first, second])
    expect(writesAndSyncs(fs.calls).map((c) => c.op)).toEqual(['write', 'datasync', 'write', 'datasync'])
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), range(0, 2)))
    await store.close()
  })

  it('serialises an event when it is appended, so later mutation cannot change the log', async () => {
    const store = jsonlStore({ dir, batchWindowMs: 10_000 })
    const { writer } = await store.create(header('s'))
    const data = { text: 'before' }
    writer.append({ seq: 0, time: 1, type: 'test/value', data } as SessionEvent)
    data.text = 'after'
    await writer.flush()
    expect(await readSession(dir, 's')).toContain('"before"')
    await store.close()
  })
})

describe('durable creation', () => {
  it('fsyncs the new file, then its directory', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs })
    await store.create(header('s'), [event(0)])
    const file = sessionFile(dir, 's')
    expect(fs.calls.filter((c) => c.op !== 'close' && c.op !== 'mkdir' && c.op !== 'readdir')).toEqual([
      // The folder, which exists, checked to be a folder (store-folder.ts).
      { op: 'open', path: dir },
      { op: 'open', path: file }, { op: 'stat', path: file }, { op: 'write', path: file }, { op: 'sync', path: file },
      // A stale record of a valid length deleted (review-valid-length-recreate.test.ts): ENOENT here.
      { op: 'unlink', path: join(dir, '.bosun-valid-s') },
      // And a list summary left by a session of that id deleted by hand (summary-file.ts).
      { op: 'unlink', path: join(dir, 's.summary.json') },
      { op: 'open', path: dir }, { op: 'sync', path: dir },
      // Whether a removed session of this id had this header, whose journal records would be taken for this one's (removal-record.ts): ENOENT here.
      { op: 'open', path: join(dir, '.bosun-removed-s') },
    ])
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0)]))
    await store.close()
  })

  it('makes new directories durable: each one and the parent of the first are fsynced', async () => {
    const fs = recordingFs()
    const nested = join(dir, 'a', 'b')
    const store = jsonlStore({ dir: nested, fs })
    await store.create(header('s'))
    const synced = fs.calls.filter((c) => c.op === 'sync').map((c) => c.path)
    expect(synced).toEqual([nested, join(dir, 'a'), dir, sessionFile(nested, 's'), nested])
    await store.close()
  })

  it.each([
    ['write', 1], ['sync', 1], ['sync', 2],
  ] as const)('a failing %s #%i refuses the create, leaves no file and lets the id be created again', async (op, nth) => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs })
    await store.create(header('other')) // the directory exists now
    fs.calls.length = 0
    fs.fail = (call) => (call.op === op && fs.count(op) === nth ? 'EIO' : undefined)
    const failure = await store.create(header('s')).catch((error: unknown) => error)
    expect(BosunError.is(failure, 'STORE')).toBe(true)
    expect(((failure as Error).cause as { code: string }).code).toBe('EIO')
    expect((failure as Error).message).toContain(sessionFile(dir, 's'))
    expect(await store.open('s')).toBeUndefined()
    fs.fail = () => undefined
    await (await store.create(header('s'))).writer.close()
    await store.close()
  })
})

describe('failures nobody was waiting for', () => {
  it('a timer batch that fails keeps its events and its error for the next flush(), which reports it; the one after retries', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs, batchWindowMs: 1 })
    const { writer } = await store.create(header('s'))
    const committed = await readSession(dir, 's')
    fs.fail = (call) => (call.op === 'write' ? 'ENOSPC' : undefined)
    const rolledBack = fs.next((c) => c.op === 'datasync')
    writer.append(event(0))
    await rolledBack
    fs.fail = () => undefined
    expect(await readSession(dir, 's')).toBe(committed)
    const failure = await writer.flush().catch((error: unknown) => error)
    expect(BosunError.is(failure, 'STORE')).toBe(true)
    expect(((failure as Error).cause as { code: string }).code).toBe('ENOSPC')
    await writer.flush()
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0)]))
    await store.close()
  })

  it('every flush() waiting on a failing batch receives the error', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000 })
    const { writer } = await store.create(header('s'))
    fs.fail = (call) => (call.op === 'datasync' && fs.count('datasync') === 1 ? 'EIO' : undefined)
    writer.append(event(0))
    const results = await Promise.allSettled([writer.flush(), writer.flush(), writer.flush()])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
    await writer.flush()
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0)]))
    await store.close()
  })
})

/** Deletes a session's lock file, as the SESSION_LOCKED message allows when no writer is left. */
async function unlinkLock(folder: string, id: string): Promise<void> {
  await unlink(`${sessionFile(folder, id)}.lock`)
}

describe('stale writers', () => {
  it('another process appending to the session (its lock deleted by hand): the writer fails with STALE_WRITER, writes nothing, and the file stays valid', async () => {
    const first = jsonlStore({ dir, batchWindowMs: 10_000 })
    const second = jsonlStore({ dir, batchWindowMs: 10_000 })
    const a = await first.create(header('s'))
    a.writer.append(event(0))
    await a.writer.flush()
    await expect(second.open('s')).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_LOCKED'))
    // Someone deletes the lock as the message allows, while the first writer is in fact still
    // running. In this process the file's identity still refuses a second writer...
    await unlinkLock(dir, 's')
    await expect(second.open('s')).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_LOCKED'))
    // ...another process does not know it: the size check is the second line of defence.
    const line = JSON.stringify(event(1, 'from b')) + '\n'
    const child = spawnSync(process.execPath, ['-e', 'require("node:fs").appendFileSync(process.argv[1], process.argv[2])', sessionFile(dir, 's'), line])
    expect(child.status).toBe(0)
    a.writer.append(event(1, 'from a'))
    const failure = await a.writer.flush().catch((error: unknown) => error)
    expect(BosunError.is(failure, 'STALE_WRITER')).toBe(true)
    expect(await a.writer.flush().catch((error: unknown) => error)).toBe(failure) // for good
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0), event(1, 'from b')]))
    await expect(a.writer.close()).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    const reopened = (await second.open('s'))!
    expect(reopened.events).toEqual([event(0), event(1, 'from b')])
    await Promise.all([first.close(), second.close()])
  })

  it('the lock is released when the writer closes, and when the store closes', async () => {
    const first = jsonlStore({ dir })
    const second = jsonlStore({ dir })
    const a = await first.create(header('s'))
    await a.writer.close()
    const b = (await second.open('s'))!
    await expect(first.open('s')).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_LOCKED'))
    await second.close()
    const c = (await first.open('s'))!
    await c.writer.close()
    await first.close()
    void b
  })

  it('refuses, synchronously, an append whose seq is not the next one', async () => {
    const store = jsonlStore({ dir })
    const { writer } = await store.create(header('s'), [event(0)])
    expect(() => writer.append(event(5))).toThrow(expect.objectContaining({ code: 'STALE_WRITER' }))
    writer.append(event(1))
    await store.close()
  })
})

describe('closing', () => {
  it('store.close() flushes every writer; later operations fail with STORE', async () => {
    const store = jsonlStore({ dir, batchWindowMs: 10_000 })
    const { writer } = await store.create(header('s'))
    writer.append(event(0))
    await store.close()
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0)]))
    expect(() => writer.append(event(1))).toThrow(expect.objectContaining({ code: 'STORE' }))
    await expect(writer.flush()).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
    await expect(store.open('s')).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
    await expect(store.create(header('t'))).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
    await expect(store.list()).rejects.toSatisfy((e) => BosunError.is(e, 'STORE'))
  })

  it('close() retries a batch the timer failed to write', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs, batchWindowMs: 1 })
    const { writer } = await store.create(header('s'))
    fs.fail = (call) => (call.op === 'datasync' && fs.count('datasync') === 1 ? 'EIO' : undefined)
    const rolledBack = fs.next((c) => c.op === 'datasync' && fs.count('datasync') === 2)
    writer.append(event(0))
    await rolledBack
    await writer.close()
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0)]))
    await store.close()
  })

  it('close() that cannot write releases the file and rejects, saying how many events were not written', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000 })
    const { writer } = await store.create(header('s'))
    const committed = await readSession(dir, 's')
    fs.fail = (call) => (call.op === 'write' ? 'ENOSPC' : undefined)
    writer.append(event(0))
    writer.append(event(1))
    const failure = await writer.close().catch((error: unknown) => error)
    expect(BosunError.is(failure, 'STORE')).toBe(true)
    expect((failure as Error).message).toContain('2 event(s) not written')
    expect(fs.calls.at(-1)).toEqual({ op: 'close', path: sessionFile(dir, 's') })
    expect(await readSession(dir, 's')).toBe(committed)
    await store.close() // the writer is no longer the store's to close
  })
})
