// Review of the rollback-by-zeros fix (08f4730): the session file's rollback when its ftruncate
// fails. Cases the fix's own tests did not reach: the zeros themselves written only part-way
// (the file must stay openable after a crash), a file deleted or appended to by someone else
// while the writer waits to cut those bytes (the writer must still refuse, as it does otherwise),
// and a writer closed while they are still there (its errors must say they may come back).
import { spawnSync } from 'node:child_process'
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { copyStoreFiles } from './testing/crash-image.js'
import { event, fileText, header, readSession, rejection, sessionFile } from './testing/fixtures.js'
import { syncThenCutAndZerosFail, tempDir, type FsCall, type RecordingFs } from './testing/recording-fs.js'
import { oneSession as sessionWithEvent0 } from './testing/one-session.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isSessionFile = (call: FsCall) => call.path.endsWith('.jsonl')

/** Session `s` without the journal, event 0 acknowledged; the file system fails what `fail` says. */
const oneSession = () => sessionWithEvent0(dir, false)

/**
 * The batch's fdatasync fails, then its rollback's ftruncate; then `zeros` decides each later
 * write of the session file (the overwrite with zeros): 'EIO' fails it after half its bytes.
 */
function failSyncThenCut(fs: RecordingFs, zeros: (n: number) => string | undefined) {
  let synced = false
  let cut = false
  let writes = 0
  fs.fail = (call) => {
    if (!isSessionFile(call)) return undefined
    if (call.op === 'datasync' && !synced) return (synced = true), 'EIO'
    if (call.op === 'truncate' && synced && !cut) return (cut = true), 'EIO'
    if (call.op === 'write' && cut) return zeros(++writes)
    return undefined
  }
}

const isValidLength = (call: FsCall) => call.path.includes('.bosun-valid-')

describe('the overwrite with zeros fails part-way', () => {
  it.each([
    ['the valid length is recorded: none of the rejected batch comes back', false],
    ['the valid length cannot be recorded either: at most whole lines of the rejected batch come back', true],
  ])('a crash then leaves a file open() still reads, never CORRUPT_LOG — %s', async (_, recordFails) => {
    const { live, fs, store, writer } = await oneSession()
    // The first write after the failed cut (the zeros) fails after half its bytes.
    failSyncThenCut(fs, (n) => (n === 1 ? 'EIO' : undefined))
    if (recordFails) {
      const sessionFaults = fs.fail
      fs.fail = (call) => (isValidLength(call) && call.op === 'open' ? 'EIO' : sessionFaults(call))
    }
    for (const seq of [1, 2, 3]) writer.append(event(seq))
    const error = await rejection(writer.flush())
    expect(error.details).toMatchObject({ step: 'fdatasync', rolledBack: !recordFails })

    const image = join(dir, 'image')
    await mkdir(image)
    await copyStoreFiles(live, image)
    const recovered = jsonlStore({ dir: image })
    // Before the fix: CORRUPT_LOG at line 3 (zeros, then the tail of event 2's line, then event 3's).
    const opened = (await recovered.open('s'))!
    if (recordFails) expect(opened.events.length).toBeGreaterThanOrEqual(1)
    else expect(opened.events).toEqual([event(0)])
    expect(opened.events).toEqual([0, 1, 2, 3].map((seq) => event(seq)).slice(0, opened.events.length))
    await opened.writer.close()
    expect(await readSession(image, 's')).toBe(fileText(header('s'), opened.events))
    await recovered.close()

    // The live writer cuts the file before its retry.
    fs.fail = () => undefined
    await writer.flush()
    expect(await readSession(live, 's')).toBe(fileText(header('s'), [0, 1, 2, 3].map((seq) => event(seq))))
    await store.close()
  })
})

/** Event 1's batch rolled back by zeros (its fdatasync and ftruncate failed): the file still to be cut. */
async function dirtyWriter() {
  const session = await oneSession()
  failSyncThenCut(session.fs, () => undefined)
  session.writer.append(event(1))
  expect((await rejection(session.writer.flush())).details).toMatchObject({ rolledBack: true })
  session.fs.fail = () => undefined
  return session
}

describe('a writer waiting to cut a failed batch off its file', () => {
  it('whose file was deleted meanwhile: the next batch is refused with STALE_WRITER, not acknowledged into a file no one can open', async () => {
    const { live, store, writer } = await dirtyWriter()
    await unlink(sessionFile(live, 's'))
    writer.append(event(2))
    const refused = await rejection(writer.flush())
    expect(refused.code).toBe('STALE_WRITER')
    expect(refused.message).toContain('was deleted or replaced')
    await expect(writer.close()).rejects.toMatchObject({ code: 'STALE_WRITER' })
    await store.close()
  })

  it('another process appended past its zeros (its lock deleted by hand): the writer refuses with STALE_WRITER instead of cutting the other\'s events', async () => {
    const { live, store, writer } = await dirtyWriter()
    // The other process does what open() does (cuts the NUL tail), then appends its events, more
    // bytes than the writer's retry (a shorter append is not told apart from the zeros by size).
    await unlink(`${sessionFile(live, 's')}.lock`)
    const committed = fileText(header('s'), [event(0)])
    const lines = [1, 2, 3].map((seq) => JSON.stringify(event(seq, 'from b')) + '\n').join('')
    const theirs = committed + lines
    const script = 'const fs = require("node:fs"); fs.truncateSync(process.argv[1], Number(process.argv[2])); fs.appendFileSync(process.argv[1], process.argv[3])'
    const child = spawnSync(process.execPath, ['-e', script, sessionFile(live, 's'), String(Buffer.byteLength(committed)), lines])
    expect(child.status).toBe(0)

    writer.append(event(2))
    const refused = await rejection(writer.flush())
    expect(refused.code).toBe('STALE_WRITER')
    expect(await readFile(sessionFile(live, 's'), 'utf8')).toBe(theirs)
    await expect(writer.close()).rejects.toMatchObject({ code: 'STALE_WRITER' })
    await store.close()
  })
})

describe('a batch its rollback could neither cut nor zero', () => {
  it('close() before any flush cut it: the valid length recorded beside the file, the next open() cuts them and deletes the record', async () => {
    const { live, fs, store, writer } = await oneSession()
    // The batch's fdatasync fails, then every ftruncate and every later write (the zeros included).
    fs.fail = syncThenCutAndZerosFail(isSessionFile)
    writer.append(event(1))
    writer.append(event(2))
    expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: true })
    const closed = await rejection(writer.close())
    expect(closed.details).toMatchObject({ lost: 2, rolledBack: true })
    expect(closed.message).not.toContain('may still be in')
    // Event 1's line is still whole in the file (the zeros stopped half-way through event 2's).
    expect(await readSession(live, 's')).toContain(JSON.stringify(event(1)))

    fs.fail = () => undefined
    const reopened = (await store.open('s'))!
    expect(reopened.events).toEqual([event(0)])
    expect(await readSession(live, 's')).toBe(fileText(header('s'), [event(0)]))
    expect(await readdir(live)).not.toContain('.bosun-valid-s')
    await store.close()
  })

  it('close() before any flush cut it, and the valid length cannot be recorded: the errors say the events may be read back when the session is opened again, and they are', async () => {
    const { fs, store, writer } = await oneSession()
    // The batch's fdatasync fails, then every ftruncate and every later write (the zeros included),
    // and the record of the valid length cannot be created.
    const fileFaults = syncThenCutAndZerosFail(isSessionFile)
    fs.fail = (call) => (isValidLength(call) && call.op === 'open' ? 'EIO' : fileFaults(call))
    // Two lines: the zeros go from the last line and fail half-way through it, leaving event 1's.
    writer.append(event(1))
    writer.append(event(2))
    const error = await rejection(writer.flush())
    expect(error.details).toMatchObject({ rolledBack: false })
    expect(error.message).toContain('when the session is opened again')

    // Before: "closed with 2 event(s) not written", nothing about the ones still in the file.
    const closed = await rejection(writer.close())
    expect(closed.details).toMatchObject({ lost: 2, rolledBack: false })
    expect(closed.message).toContain('may still be in')

    fs.fail = () => undefined
    const reopened = (await store.open('s'))!
    expect(reopened.events).toEqual([event(0), event(1)])
    await store.close()
  })
})
