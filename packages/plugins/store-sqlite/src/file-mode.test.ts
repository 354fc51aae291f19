// A new database holds conversations: it is private to its owner (0600), as JSONL's session files
// are, and so are the -wal and -shm files SQLite makes beside it (they take the database's mode).
// SQLite alone created it 0644 less the umask: readable by every user of the machine.
import { chmodSync, statSync, writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sqliteStore } from './store.js'
import { event, header, tempDatabase } from './testing/temp.js'

let file: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ file, cleanup } = await tempDatabase()))
afterEach(() => cleanup())

const modeOf = (path: string): number => statSync(path).mode & 0o777

describe('the database file\'s mode', () => {
  it('a new database and its -wal and -shm files are readable and writable by their owner only', async () => {
    const store = sqliteStore({ file })
    const session = await store.create(header('s'))
    session.writer.append(event(0))
    await session.writer.flush()
    // Checked while the store is open: SQLite removes -wal and -shm when the last connection closes.
    expect([file, `${file}-wal`, `${file}-shm`].map((path) => [path, modeOf(path)])).toEqual([file, `${file}-wal`, `${file}-shm`].map((path) => [path, 0o600]))
    await session.writer.close()
    await store.close()
  })

  it('an existing database keeps the mode its owner gave it', async () => {
    writeFileSync(file, '')
    chmodSync(file, 0o640)
    const store = sqliteStore({ file })
    await store.create(header('s'))
    await store.close()
    expect(modeOf(file)).toBe(0o640)
  })
})
