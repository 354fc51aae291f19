// The real file system adapter: what the writer relies on besides node:fs/promises itself.
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

it('opens session files (r+ to append, wx to create) with O_DSYNC on Linux, so a batch needs no separate fdatasync; header reads stay plain', async () => {
  const file = join(dir, 'b.jsonl')
  const created = await nodeFileSystem.open(file, 'wx', 0o600)
  const appended = await nodeFileSystem.open(file, 'r+')
  const read = await nodeFileSystem.open(file, 'r')
  try {
    const expected = process.platform === 'linux' // macOS keeps F_FULLFSYNC; Windows has no O_DSYNC
    expect(created.durableWrites).toBe(expected)
    expect(appended.durableWrites).toBe(expected)
    expect(read.durableWrites).toBe(false)
    // The O_EXCL of 'wx' is kept: a second create of the same file fails.
    await expect(nodeFileSystem.open(file, 'wx', 0o600)).rejects.toMatchObject({ code: 'EEXIST' })
  } finally {
    await Promise.all([created.close(), appended.close(), read.close()])
  }
})
