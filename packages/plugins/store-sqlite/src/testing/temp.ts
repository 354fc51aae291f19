import { mkdtemp, rm } from 'node:fs/promises'
import Database from 'better-sqlite3'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOG_FORMAT_VERSION } from '@bosun/core'
import type { SessionEvent, SessionHeader } from '@bosun/core'

/** A fresh temporary folder and a database path inside it; `cleanup` removes both. */
export async function tempDatabase(): Promise<{ dir: string; file: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-sqlite-'))
  return { dir, file: join(dir, 'db.sqlite'), cleanup: () => rm(dir, { recursive: true, force: true }) }
}

export const header = (id: string, extra: Partial<SessionHeader> = {}): SessionHeader => ({
  id, version: LOG_FORMAT_VERSION, createdAt: 1_700_000_000_000, ...extra,
})

export const event = (seq: number, data: Record<string, unknown> = { n: seq }): SessionEvent =>
  Object.freeze({ seq, time: 1_700_000_000_000 + seq, type: 'test/value', data: Object.freeze(data) }) as SessionEvent

/**
 * SQL for the key of a session's row starting at `seq` (layout 2: `(session key << 32) | seq`),
 * e.g. `DELETE FROM events WHERE key = ${rowKey('s', 2)}`. `id` may be a named parameter (`@id`).
 */
export const rowKey = (id: string, seq: number): string =>
  `(SELECT (key << 32) | ${seq} FROM sessions WHERE id = ${id.startsWith('@') ? id : `'${id}'`})`

/** Runs `fn` on a raw connection to `file` (to inspect or damage it), closed afterwards. */
export function withDatabase<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file)
  try {
    return fn(db)
  } finally {
    db.close()
  }
}
