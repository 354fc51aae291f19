import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sqliteStore } from './store.js'
import { event, header, tempDatabase } from './testing/temp.js'

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * A child process that opens the database with better-sqlite3 (resolved from this package),
 * begins a transaction, inserts `count` large rows continuing session `id` from seq `start` (more
 * than its page cache, set to 2 MB, holds, so uncommitted pages spill into the WAL file), says "inserted" and
 * waits to be killed, never committing.
 */
const CHILD = `
const { createRequire } = require('node:module')
const Database = createRequire(process.env.PACKAGE_DIR + '/package.json')('better-sqlite3')
const db = new Database(process.env.DB_FILE, { timeout: 5000 })
db.pragma('synchronous = FULL')
db.pragma('cache_size = -2000') // 2 MB: the ~5 MB of rows below cannot all stay in it
db.exec('BEGIN IMMEDIATE')
const key = db.prepare('SELECT key FROM sessions WHERE id = ?').pluck().get(process.env.SESSION)
const insert = db.prepare('INSERT INTO events (key, time, type, data, extra) VALUES ((? << 32) | ?, ?, ?, ?, NULL)')
const start = Number(process.env.START)
const pad = 'x'.repeat(1000)
for (let i = 0; i < Number(process.env.COUNT); i++) insert.run(key, start + i, 1, 'test/value', JSON.stringify({ pad }))
process.stdout.write('inserted\\n')
setInterval(() => {}, 1000)
`

let file: string
let cleanup: () => Promise<void>
beforeEach(async () => {
  ;({ file, cleanup } = await tempDatabase())
})
afterEach(() => cleanup())

describe('sqlite store — crash', () => {
  it('an uncommitted transaction is invisible after its process is killed (no torn batch)', async () => {
    const store = sqliteStore({ file })
    const s = await store.create(header('crash'))
    for (let i = 0; i < 5; i++) s.writer.append(event(i))
    await s.writer.flush()
    await store.close()

    const child = spawn(process.execPath, ['-e', CHILD], {
      env: { ...process.env, PACKAGE_DIR: packageDir, DB_FILE: file, SESSION: 'crash', START: '5', COUNT: '5000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('inserted') && resolve())
      child.on('exit', (code) => reject(new Error(`the child exited (${code}) before inserting: ${stderr}`)))
    })
    // The uncommitted rows reached the disk (spilled into the WAL), yet they must not count.
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1_000_000)
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')

    const again = sqliteStore({ file })
    const opened = await again.open('crash')
    expect(opened?.events).toEqual([0, 1, 2, 3, 4].map((i) => event(i)))
    // The log continues right after the last committed event.
    opened!.writer.append(event(5))
    await opened!.writer.close()
    await again.close()
    const db = new Database(file)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    expect(db.prepare(`SELECT COUNT(*) FROM session_events WHERE session_id = 'crash'`).pluck().get()).toBe(6)
    db.close()
  })
})
