// Something that is not a record Bosun writes, under the name of a session's valid-length record
// (`.bosun-valid-<id>`: a symbolic link, a directory), is refused like a lock file of the same
// kind (UNSAFE_STORE_FILE, naming it and saying to delete it), by open() and read() alike.
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ErrorCodes } from '@bosun/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { event, header, rejection } from './testing/fixtures.js'
import { tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

async function session(): Promise<void> {
  const store = jsonlStore({ dir })
  const { writer } = await store.create(header('s'))
  writer.append(event(0))
  await store.close()
}

it.each([
  ['symbolic link', (path: string) => writeFile(join(dir, 'elsewhere'), '{}\n').then(() => symlink(join(dir, 'elsewhere'), path))],
  ['directory', (path: string) => mkdir(path)],
])('a %s named like the record: open() and read() refuse it with UNSAFE_STORE_FILE and say to delete it', async (kind, plant) => {
  await session()
  const path = join(dir, '.bosun-valid-s')
  await plant(path)
  const store = jsonlStore({ dir })
  for (const attempt of [() => store.open('s'), () => store.read!('s')]) {
    const error = await rejection(attempt())
    // Before: STORE, "Could not write session "s" …: read of … failed: ELOOP/EISDIR", no advice.
    expect(error.code).toBe(ErrorCodes.UNSAFE_STORE_FILE)
    expect(error.details).toMatchObject({ sessionId: 's', file: path, kind })
    expect(error.message).toContain(path)
    expect(error.message).toMatch(/Delete it/)
  }
  await store.close()
})
