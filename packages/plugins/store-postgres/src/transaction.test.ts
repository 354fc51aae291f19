// A transaction whose statement the database never answered (the client's query_timeout): the
// connection still has that statement under way, so a ROLLBACK on it waited behind it for the whole
// bound again before the connection was dropped. It is dropped at once; a failure the server
// answered is rolled back and the connection kept. No database: a pool that records what is sent.
import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { inTransaction } from './database.js'

function recordingPool(failure: Error) {
  const sent: string[] = []
  const released: unknown[] = []
  const client = {
    query: async (text: string) => {
      sent.push(text)
      if (text === 'SELECT stuck') throw failure
      return { rows: [], rowCount: 0 }
    },
    release: (broken?: boolean) => void released.push(broken),
    on: () => client,
    off: () => client,
  }
  return { pool: { connect: async () => client } as unknown as pg.Pool, sent, released }
}

describe('postgres store — a transaction that fails', () => {
  it('drops the connection without a ROLLBACK when the database did not answer', async () => {
    const { pool, sent, released } = recordingPool(new Error('Query read timeout'))
    await expect(inTransaction(pool, (client) => client.query('SELECT stuck'))).rejects.toThrow('Query read timeout')
    expect(sent).toEqual(['BEGIN', 'SELECT stuck'])
    expect(released).toEqual([true])
  })

  it("rolls back, and keeps the connection, on the server's error", async () => {
    const { pool, sent, released } = recordingPool(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))
    await expect(inTransaction(pool, (client) => client.query('SELECT stuck'))).rejects.toThrow('statement timeout')
    expect(sent).toEqual(['BEGIN', 'SELECT stuck', 'ROLLBACK'])
    expect(released).toEqual([false])
  })
})
