// The real file system adapter: what the writer relies on besides node:fs/promises itself.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { nodeFileSystem } from './file-system.js'
import { tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

it('answers stat on an open session file synchronously with its current size (no thread-pool round trip per batch)', async () => {
  const handle = await nodeFileSystem.open(join(dir, 'a.jsonl'), 'wx', 0o600)
  try {
    const before = handle.stat()
    expect(before).not.toBeInstanceOf(Promise)
    expect((before as { size: number }).size).toBe(0)
    const bytes = Buffer.from('{"a":1}\n')
    await handle.write(bytes, 0, bytes.length, 0)
    expect((handle.stat() as { size: number }).size).toBe(bytes.length)
  } finally {
    await handle.close()
  }
  // A closed handle fails synchronously (the writer turns any throw into a STORE error naming fstat).
  expect(() => handle.stat()).toThrow()
})

it('gives session handles opened to write (r+ to append, wx to create) a synchronous writeSync, and no durableWrites: a batch is written on the calling thread, then fdatasynced', async () => {
  const file = join(dir, 'b.jsonl')
  const created = await nodeFileSystem.open(file, 'wx', 0o600)
  const appended = await nodeFileSystem.open(file, 'r+')
  const read = await nodeFileSystem.open(file, 'r')
  try {
    for (const handle of [created, appended, read]) expect(handle.durableWrites).toBeFalsy()
    expect(read.writeSync).toBeUndefined()
    const bytes = Buffer.from('{"a":1}\n{"b":2}\n')
    expect(created.writeSync!(bytes, 0, 8, 0)).toBe(8)
    expect(appended.writeSync!(bytes, 8, 8, 8)).toBe(8)
    expect(await readFile(file, 'utf8')).toBe(bytes.toString())
    // The O_EXCL of 'wx' is kept: a second create of the same file fails.
    await expect(nodeFileSystem.open(file, 'wx', 0o600)).rejects.toMatchObject({ code: 'EEXIST' })
  } finally {
    await Promise.all([created.close(), appended.close(), read.close()])
  }
  // A closed handle fails synchronously (the writer turns any throw into a STORE error naming the write).
  expect(() => appended.writeSync!(Buffer.from('x'), 0, 1, 0)).toThrow()
})
