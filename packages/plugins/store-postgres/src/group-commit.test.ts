import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, event, header, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — group commit', () => {
  const pg = usePostgres()

  it('batches flushed in the same tick commit together, and a refused batch is refused alone', async () => {
    const schema = pg.schema()
    const a = postgresStore({ url: pg.url(), schema, owner: 'host-a' })
    const b = postgresStore({ url: pg.url(), schema, owner: 'host-b' })
    const writers = []
    for (let i = 0; i < 12; i++) writers.push((await a.create(header(`g${i}`))).writer)
    // g3's lease is taken over by b; g7 gets a row behind its writer's back (a duplicate seq).
    await pg.sql(`UPDATE "${schema}".session_leases SET expires_at = '-infinity' WHERE session_id = 'g3'`)
    const taken = await b.open('g3')
    await pg.sql(`INSERT INTO "${schema}".session_events (session_id, seq, type, time, data) VALUES ('g7', 0, 'test/value', 1, '{}')`)
    for (const w of writers) w.append(event(0))
    const results = await Promise.allSettled(writers.map((w) => w.flush()))
    const refused = results.flatMap((r, i) => (r.status === 'rejected' ? [[i, (r.reason as BosunError).code]] : []))
    expect(refused).toEqual([[3, 'STALE_WRITER'], [7, 'STALE_WRITER']])
    const lengths = await pg.sql<{ id: string; length: number }>(`SELECT id, length FROM "${schema}".sessions ORDER BY id`)
    expect(lengths.filter((r) => r.length === 1).map((r) => r.id).sort()).toEqual(['g0', 'g1', 'g10', 'g11', 'g2', 'g4', 'g5', 'g6', 'g8', 'g9'])
    // The others keep writing: seqs contiguous per session.
    for (const [i, w] of writers.entries()) if (i !== 3 && i !== 7) w.append(event(1))
    await Promise.all(writers.map((w, i) => (i === 3 || i === 7 ? undefined : w.flush())))
    const counts = await pg.sql<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".session_events WHERE seq = 1`)
    expect(counts[0]!.n).toBe(10)
    await taken!.writer.close()
    for (const w of writers) await w.close().catch(() => {})
    await Promise.all([a.close(), b.close()])
  })
})
