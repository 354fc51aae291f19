import { describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { LOG_FORMAT_VERSION, type Delegation, type SessionHeader } from '../session/events.js'
import { memoryStore } from './memory.js'
import { removeSession } from './remove.js'
import type { Store } from './types.js'

const header = (id: string, parent?: string): SessionHeader => ({
  id, version: LOG_FORMAT_VERSION, createdAt: 1,
  ...(parent === undefined ? {} : { delegation: { parentSessionId: parent, callId: `call-${id}`, depth: 1, mode: 'one-shot' } satisfies Delegation }),
})

async function make(store: Store, ...sessions: Array<[string, string?]>) {
  for (const [id, parent] of sessions) await (await store.create(header(id, parent))).writer.close()
}

const ids = async (store: Store) => (await store.list()).map((entry) => entry.id).sort()

describe('removeSession', () => {
  it('removes a session, then its subagent descendants breadth-first; its siblings and forks stay', async () => {
    const store = memoryStore()
    await make(store, ['root'], ['a', 'root'], ['b', 'root'], ['a1', 'a'], ['b1', 'b'], ['a11', 'a1'], ['other'], ['other-child', 'other'])
    expect(await removeSession(store, 'root')).toEqual(['root', 'a', 'b', 'a1', 'b1', 'a11'])
    expect(await ids(store)).toEqual(['other', 'other-child'])
  })

  it('is [] for a session the store does not have', async () => {
    const store = memoryStore()
    await make(store, ['x'])
    expect(await removeSession(store, 'nope')).toEqual([])
    expect(await ids(store)).toEqual(['x'])
  })

  it('refuses a child whose parent is stored (CHILD_SESSION), and removes an orphan', async () => {
    const store = memoryStore()
    await make(store, ['p'], ['c', 'p'])
    const refusal = await removeSession(store, 'c').catch((error: unknown) => error)
    expect(BosunError.is(refusal, 'CHILD_SESSION')).toBe(true)
    expect((refusal as BosunError).message).toContain('remove "p"')
    expect((refusal as BosunError).details).toEqual({ sessionId: 'c', parentSessionId: 'p' })
    expect(await ids(store)).toEqual(['c', 'p'])
    // An orphan (its parent removed by a run that stopped halfway) goes on its own.
    await store.remove!('p')
    expect(await removeSession(store, 'c')).toEqual(['c'])
    expect(await ids(store)).toEqual([])
  })

  it('removes nothing while the session is open for writing (SESSION_LOCKED)', async () => {
    const store = memoryStore()
    await make(store, ['busy'], ['busy-child', 'busy'])
    const open = await store.open('busy')
    await expect(removeSession(store, 'busy')).rejects.toSatisfy((e: unknown) => BosunError.is(e, 'SESSION_LOCKED'))
    expect(await ids(store)).toEqual(['busy', 'busy-child'])
    await open!.writer.close()
    expect(await removeSession(store, 'busy')).toEqual(['busy', 'busy-child'])
  })

  it('says which descendant it could not remove, and what it removed before', async () => {
    const store = memoryStore()
    await make(store, ['top'], ['kid', 'top'])
    const kid = await store.open('kid')
    const failure = await removeSession(store, 'top').catch((error: unknown) => error)
    expect(BosunError.is(failure, 'STORE')).toBe(true)
    expect((failure as BosunError).message).toMatch(/Removed "top", then could not remove its descendant "kid": .*Remove "kid" on its own/)
    expect((failure as BosunError).details).toEqual({ sessionId: 'kid', removed: ['top'] })
    await kid!.writer.close()
    expect(await removeSession(store, 'kid')).toEqual(['kid'])
  })

  it('finds children through headers when the list does not say, and refuses a store without remove', async () => {
    const inner = memoryStore()
    await make(inner, ['r'], ['r-kid', 'r'])
    // A store whose list leaves `delegation` out (it does not say) and which has `header`.
    const quiet: Store = { ...inner, name: 'quiet', list: async () => (await inner.list()).map(({ delegation: _, ...rest }) => rest) }
    expect(await removeSession(quiet, 'r')).toEqual(['r', 'r-kid'])
    const { remove: _, ...rest } = inner
    const readOnly: Store = { ...rest, name: 'read-only' }
    const refusal = await removeSession(readOnly, 'r').catch((error: unknown) => error)
    expect(BosunError.is(refusal, 'STORE')).toBe(true)
    expect((refusal as BosunError).message).toContain('The read-only store cannot remove sessions')
    await expect(removeSession(inner, '../etc')).rejects.toSatisfy((e: unknown) => BosunError.is(e, 'INVALID_SESSION_ID'))
  })
})
