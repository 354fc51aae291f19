// The database path must be a regular file (or a link to one): a FIFO, a device, a folder or a
// dangling link is refused before SQLite opens it, and so is a link planted as its -wal file.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { sqliteStore } from './store.js'
import { event, header, tempDatabase } from './testing/temp.js'

let dir: string
let file: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, file, cleanup } = await tempDatabase()))
afterEach(() => cleanup())

const canMakeFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).error === undefined

/** The first operation opens the database: it must be refused, naming the file and its kind. */
async function expectRefused(path: string, kind: string): Promise<BosunError> {
  const store = sqliteStore({ file })
  const error = (await store.list().catch((e: unknown) => e)) as BosunError
  await store.close()
  expect(BosunError.is(error, 'UNSAFE_STORE_FILE'), String(error)).toBe(true)
  expect(error.details).toMatchObject({ file: path, database: file, kind })
  expect(error.message).toContain(path)
  return error
}

describe('a database path that is not a regular file', () => {
  it.each(['/dev/null', '/dev/zero'])('a link to %s is refused: SQLite would write pages into a device', async (device) => {
    symlinkSync(device, file)
    const error = await expectRefused(file, 'character device')
    expect(error.message).toMatch(/a link to a character device, not a regular file.*Point "file" at a regular file/)
  })

  it.skipIf(!canMakeFifo)('a FIFO is refused', async () => {
    spawnSync('mkfifo', [file])
    await expectRefused(file, 'FIFO (named pipe)')
  })

  it('a folder is refused', async () => {
    mkdirSync(file)
    await expectRefused(file, 'directory')
  })

  it('a dangling link is refused, and nothing is created where it points', async () => {
    const target = join(dir, 'elsewhere', 'planted.sqlite')
    mkdirSync(join(dir, 'elsewhere'))
    symlinkSync(target, file)
    await expectRefused(file, 'symbolic link')
    expect(existsSync(target)).toBe(false)
  })

  it('a link to a regular database is followed, as SQLite does: its -wal goes beside the real file', async () => {
    const real = join(dir, 'real.sqlite')
    const first = sqliteStore({ file: real })
    await first.list()
    await first.close()
    symlinkSync(real, file)
    const store = sqliteStore({ file })
    const s = await store.create(header('s'))
    s.writer.append(event(0))
    await s.writer.flush()
    expect(existsSync(`${real}-wal`)).toBe(true)
    await store.close()
    const again = sqliteStore({ file: real })
    expect((await again.open('s'))?.events).toEqual([event(0)])
    await again.close()
  })
})

describe('the files SQLite keeps beside the database', () => {
  it.each(['-wal', '-shm', '-journal'])('a link planted as its %s file is refused, naming that file', async (suffix) => {
    const store = sqliteStore({ file })
    await (await store.create(header('s'))).writer.close()
    await store.close()
    const before = readFileSync(file)
    symlinkSync('/dev/null', file + suffix)
    const error = await expectRefused(file + suffix, 'symbolic link')
    expect(error.message).toContain(`where SQLite keeps the database's ${suffix.slice(1)} file`)
    expect(readFileSync(file)).toEqual(before)
  })
})
