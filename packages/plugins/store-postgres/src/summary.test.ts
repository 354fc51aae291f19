// The list summary kept in sessions.summary: a preview of the first prompt, however long it is.
import { describe, expect, it } from 'vitest'
import { createUserMessage, summarizeLog } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, header, usePostgres } from './testing/postgres.js'

const prompt = (text: string): SessionEvent =>
  Object.freeze({ seq: 0, time: 1_700_000_000_000, type: 'user/message', data: createUserMessage(text, { id: 'u' }) }) as SessionEvent
const other = (seq: number): SessionEvent => Object.freeze({ seq, time: 1_700_000_000_000 + seq, type: 'test/value', data: { n: seq } }) as SessionEvent

describe.skipIf(!available)('postgres store — list summaries (sessions.summary)', () => {
  const pg = usePostgres()

  it('keeps a preview of a long first prompt, so the summary every batch writes stays small', async () => {
    const schema = pg.schema()
    const store = postgresStore({ url: pg.url(), schema })
    const { writer } = await store.create(header('long'))
    writer.append(prompt('x'.repeat(100_000)))
    for (let seq = 1; seq <= 3; seq++) {
      writer.append(other(seq))
      await writer.flush()
    }
    await writer.close()
    const [row] = await pg.sql(`SELECT octet_length(summary) AS bytes FROM "${schema}".sessions WHERE id = 'long'`)
    expect((row as { bytes: number }).bytes).toBeLessThan(400)
    const [listed] = await store.list()
    const log = (await store.read!('long'))!
    expect(listed).toMatchObject({ length: 4, firstPrompt: `${'x'.repeat(199)}…` })
    expect(listed!.firstPrompt).toBe(summarizeLog(log.header, log.events).firstPrompt)
    await store.close()
  })

  it('lists the preview of a whole first prompt that an earlier build kept in sessions.summary (no per-queue counts: none listed)', async () => {
    const schema = pg.schema()
    const store = postgresStore({ url: pg.url(), schema })
    const { writer } = await store.create(header('old'))
    writer.append(prompt('y'.repeat(1_000)))
    await writer.close()
    const whole = JSON.stringify({ length: 1, lastActivity: 1_700_000_000_000, turns: 0, firstPrompt: 'y'.repeat(1_000), pending: 0 })
    await pg.sql(`UPDATE "${schema}".sessions SET summary = $1 WHERE id = 'old'`, [whole])
    // That build kept no per-queue counts: `queued` is left out (a reader that needs it reads the log), the rest is used.
    expect(await store.list()).toEqual([
      { id: 'old', createdAt: header('old').createdAt, length: 1, lastActivity: 1_700_000_000_000, turns: 0, firstPrompt: `${'y'.repeat(199)}…`, pending: 0, delegation: null },
    ])
    await store.close()
  })
})
