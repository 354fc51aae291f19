// One session's list item (`summary(id)`): the row list() gives, read by its key.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, header, usePostgres } from './testing/postgres.js'

const event = (seq: number): SessionEvent => Object.freeze({ seq, time: 1_700_000_000_000 + seq, type: 'test/value', data: { n: seq } }) as SessionEvent

describe.skipIf(!available)('postgres store — one session\'s summary', () => {
  const pg = usePostgres()

  it('summary(id) is the session\'s item of list(), its length what is committed; undefined for no such session', async () => {
    const store = postgresStore({ url: pg.url(), schema: pg.schema() })
    const { writer } = await store.create(header('one'))
    await (await store.create({ ...header('two'), parent: 'one' })).writer.close()
    for (let seq = 0; seq < 5; seq++) writer.append(event(seq))
    await writer.flush()
    // The header's delegation aside (list() reads the headers; summary(id) reads no header):
    // toEqual takes a field that is undefined for one that is missing.
    const listed = (await store.list()).map((item) => ({ ...item, delegation: undefined }))
    expect(await store.summary('one')).toEqual(listed.find((s) => s.id === 'one'))
    expect(await store.summary('two')).toEqual(listed.find((s) => s.id === 'two'))
    expect(await store.summary('one')).toMatchObject({ id: 'one', length: 5 })
    // Appended, not yet committed: not counted.
    writer.append(event(5))
    expect((await store.summary('one'))!.length).toBe(5)
    await writer.close()
    expect((await store.summary('one'))!.length).toBe(6)
    expect(await store.summary('nobody')).toBeUndefined()
    await expect(store.summary('../x')).rejects.toMatchObject({ code: 'INVALID_SESSION_ID' })
    await store.close()
  })
})
