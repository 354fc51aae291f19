// host.close() after a close that failed: a store that could not flush a session's log at the
// first close (an outage) flushes it at the second — the host's close is not stuck on the first
// failure, and only the session that failed is closed again.
import { createAgent, type SessionWriter, type Store, type StoredSession } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { describe, expect, it } from 'vitest'
import { createHost } from '../src/index.js'
import { perTest } from './helpers.js'

const t = perTest()

/**
 * A JSONL store (its writers hold a lock until closed) whose writers' first close fails without
 * closing (the database did not answer); `closes` counts the attempts. With `final`, that writer's
 * close is final as the bundled stores' are: it releases the lock and answers every close with the
 * same failure.
 */
function storeFailingFirstClose(dir: string, final?: Error): { store: Store; closes: string[] } {
  const target = jsonlStore({ dir })
  const closes: string[] = []
  let failed = false
  let finalClose: Promise<void> | undefined
  const wrap = (id: string, stored: StoredSession): StoredSession => {
    const writer = new Proxy(stored.writer, {
      get(w, key) {
        if (key === 'close') {
          return async () => {
            closes.push(id)
            if (final !== undefined && finalClose !== undefined) return finalClose
            if (!failed) {
              failed = true
              if (final !== undefined) return (finalClose = w.close().then(() => Promise.reject(final)))
              throw new Error('the store did not answer (outage)')
            }
            return w.close()
          }
        }
        const value = Reflect.get(w, key, w) as unknown
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(w) : value
      },
    }) as SessionWriter
    return { ...stored, writer }
  }
  const store = new Proxy(target, {
    get(s, key) {
      if (key === 'create') return async (...args: Parameters<Store['create']>) => wrap(args[0].id, await s.create(...args))
      if (key === 'open') return async (id: string) => {
        const stored = await s.open(id)
        return stored === undefined ? undefined : wrap(id, stored)
      }
      const value = Reflect.get(s, key, s) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(s) : value
    },
  })
  return { store, closes }
}

describe('host.close() after a failed close', () => {
  it('retries the session whose log could not be closed, and then resolves', async () => {
    const { store, closes } = storeFailingFirstClose(t.dir)
    const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }) })
    for (const id of ['one', 'two']) {
      const created = await host.fetch(new Request('http://127.0.0.1/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }) }))
      expect(created.status).toBe(201)
    }

    await expect(host.close()).rejects.toThrow('outage')
    expect(closes).toHaveLength(2)
    const failedId = closes[0]!
    // Still held by the host's writer: its close never ran.
    await expect(store.open(failedId)).rejects.toMatchObject({ code: 'SESSION_LOCKED' })

    await host.close()
    // Only the session that failed was closed again, and its writer is released now.
    expect(closes).toEqual([failedId, closes[1], failedId])
    const reopened = await store.open(failedId)
    expect(reopened?.header.id).toBe(failedId)
    await reopened?.writer.close()
  })

  it('resolves on the retry when the failed writer’s close is final (the same failure again), reported once', async () => {
    const final = new Error('3 events could not be written (outage)')
    const { store, closes } = storeFailingFirstClose(t.dir, final)
    const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }) })
    const created = await host.fetch(new Request('http://127.0.0.1/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'one' }) }))
    expect(created.status).toBe(201)

    await expect(host.close()).rejects.toBe(final)
    await host.close()
    expect(closes).toEqual(['one', 'one'])
    // A third close has nothing left to do.
    await host.close()
    expect(closes).toEqual(['one', 'one'])
  })
})
