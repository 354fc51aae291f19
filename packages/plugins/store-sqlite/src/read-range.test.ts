// A range of a session's events (`readEvents`) across packed chunk rows, beyond the contract's
// (store-contract: summary(id) and readEvents on small logs): what a host reads a page or a log's end with.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { sqliteStore, type SqliteStore } from './store.js'
import { event, header, tempDatabase, withDatabase } from './testing/temp.js'

let file: string
let cleanup: () => Promise<void>
const open: SqliteStore[] = []
const make = () => {
  const store = sqliteStore({ file })
  open.push(store)
  return store
}

beforeEach(async () => {
  ;({ file, cleanup } = await tempDatabase())
})
afterEach(async () => {
  for (const store of open.splice(0)) await store.close()
  await cleanup()
})

const chunk = (seq: number): SessionEvent =>
  Object.freeze({ seq, time: 1_700_000_000_000 + seq, type: 'assistant/chunk', data: Object.freeze({ turn: 1, step: 1, chunk: Object.freeze({ type: 'text-delta', text: `t${seq}` }) }) }) as SessionEvent

describe('sqlite store — a range of a session\'s events', () => {
  it('readEvents gives every range of the log as a slice of the whole, across packed chunk rows', async () => {
    const store = make()
    const { writer } = await store.create(header('s'))
    // Runs of chunks (packed, up to 256 a row) between single events, over several batches.
    const log: SessionEvent[] = []
    for (let batch = 0; batch < 4; batch++) {
      for (let i = 0; i < 300; i++) log.push(i % 100 === 99 ? event(log.length) : chunk(log.length))
      for (const e of log.slice(-300)) writer.append(e)
      await writer.flush()
    }
    await writer.close()
    const packed = withDatabase(file, (db) => db.prepare('SELECT COUNT(*) FROM session_events WHERE session_id = ? AND count > 1').pluck().get('s')) as number
    expect(packed).toBeGreaterThan(4)
    const reader = make()
    for (const [from, limit] of [[0, 1], [0, 1000], [1, 255], [98, 3], [99, 1], [100, 256], [257, 1], [511, 300], [1199, 5], [1200, 5], [5000, 1]] as const) {
      expect(await reader.readEvents('s', from, limit)).toEqual(log.slice(from, from + limit))
    }
    expect(await reader.readEvents('s', 700)).toEqual(log.slice(700, 1700))
    expect(await reader.readEvents('nobody', 0)).toEqual([])
    await expect(reader.readEvents('s', -1)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
    await expect(reader.readEvents('s', 0, 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
  })

  it('a gap before the range is CORRUPT_LOG, not a shorter page', async () => {
    const store = make()
    const { writer } = await store.create(header('gap'))
    for (let seq = 0; seq < 6; seq++) writer.append(event(seq))
    await writer.close()
    withDatabase(file, (db) => db.prepare(`DELETE FROM events WHERE key = (SELECT key FROM sessions WHERE id = 'gap') << 32 | 2`).run())
    await expect(make().readEvents('gap', 2, 2)).rejects.toMatchObject({ code: 'CORRUPT_LOG' })
    expect(await make().readEvents('gap', 3, 2)).toEqual([event(3), event(4)])
  })
})
