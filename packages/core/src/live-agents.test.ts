// The registry of live agents: one writer per (store, session) in a process, borrowed by whoever
// needs that session while it is open.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from './create-agent.js'
import { BosunError, ErrorCodes } from './errors.js'
import { awaitLiveAgent, borrowOrOpen, findLiveAgent, liveAgents, offerChildOpener, openThroughParent, whenAgentClosed } from './live-agents.js'
import { definePlugin } from './plugin.js'
import { memoryStore } from './store/memory.js'
import { LOG_FORMAT_VERSION } from './session/events.js'
import type { Store } from './store/types.js'
import { gate } from './testing/harness.js'

/** A memory store whose `open` waits for `release()`: an agent caught mid-open. */
function slowStore() {
  const inner = memoryStore()
  const opening = gate()
  const store: Store = { ...inner, open: async (id) => (await opening.promise, inner.open(id)) }
  return { store, release: () => opening.open() }
}

describe('live agents registry', () => {
  it('holds an agent from the end of createAgent until its close has finished, per store instance', async () => {
    const store = memoryStore()
    const agent = await createAgent({ model: scripted(), store, sessionId: 's1' })
    expect(findLiveAgent(store, 's1')).toBe(agent)
    expect(findLiveAgent(store, 's2')).toBeUndefined()
    // Another store object is another set of sessions, even for the same id.
    expect(findLiveAgent(memoryStore(), 's1')).toBeUndefined()
    expect(await awaitLiveAgent(store, 's1')).toBe(agent)
    let closed = false
    void whenAgentClosed(agent).then(() => (closed = true))
    const closing = agent.close()
    // Closing refuses input: it is lent to no one from the call on, and a waiter waits out the close.
    expect(findLiveAgent(store, 's1')).toBeUndefined()
    const waited = awaitLiveAgent(store, 's1')
    await closing
    expect(await waited).toBeUndefined()
    await whenAgentClosed(agent)
    expect(closed).toBe(true)
    // The session is free again: a new agent opens it and is the one registered.
    const again = await createAgent({ model: scripted(), store, sessionId: 's1' })
    expect(findLiveAgent(store, 's1')).toBe(again)
    await again.close()
  })

  it('refuses a second open of a session another agent of this process is opening; borrowOrOpen borrows that agent instead', async () => {
    const { store, release } = slowStore()
    const first = createAgent({ model: scripted(), store, sessionId: 'shared' })
    const second = createAgent({ model: scripted(), store, sessionId: 'shared' })
    const refusal = await second.catch((error: unknown) => error)
    expect(BosunError.is(refusal, ErrorCodes.SESSION_LOCKED)).toBe(true)
    expect((refusal as BosunError).details).toMatchObject({ sessionId: 'shared', inProcess: true })
    expect((refusal as BosunError).message).toContain('borrow')
    let opens = 0
    const borrowing = borrowOrOpen(store, 'shared', async () => (opens++, createAgent({ model: scripted(), store, sessionId: 'shared' })))
    const waiting = awaitLiveAgent(store, 'shared')
    release()
    const agent = await first
    expect(await borrowing).toEqual({ agent, borrowed: true })
    expect(await waiting).toBe(agent)
    expect(opens).toBe(0)
    // The borrower's writes go through the one writer: nothing is fenced.
    agent.followup('through the borrowed agent')
    await agent.whenIdle()
    expect(agent.session.events.some((e) => e.type === 'turn/end')).toBe(true)
    await agent.close()
  })

  it('borrowOrOpen opens when nothing holds the session, and retries as a borrow when its own open lost a race', async () => {
    const store = memoryStore()
    const opened = await borrowOrOpen(store, 'mine', () => createAgent({ model: scripted(), store, sessionId: 'mine' }))
    expect(opened.borrowed).toBe(false)
    expect(findLiveAgent(store, 'mine')).toBe(opened.agent)
    await opened.agent.close()
    // The open runs after the check; another open started in between wins, and the loser borrows it.
    const { store: slow, release } = slowStore()
    let rival: Promise<unknown> | undefined
    const racing = borrowOrOpen(slow, 'raced', async () => {
      rival = createAgent({ model: scripted(), store: slow, sessionId: 'raced' })
      return createAgent({ model: scripted(), store: slow, sessionId: 'raced' })
    })
    await Promise.resolve()
    release()
    const result = await racing
    expect(result.borrowed).toBe(true)
    expect(result.agent).toBe(await rival)
    await result.agent.close()
  })

  it('a failed createAgent leaves nothing registered: the session opens afterwards', async () => {
    const store = memoryStore()
    const broken = definePlugin({ name: 'broken', setup() { throw new Error('no') } })
    await expect(createAgent({ model: scripted(), store, sessionId: 'f', plugins: [broken] })).rejects.toThrow()
    expect(findLiveAgent(store, 'f')).toBeUndefined()
    expect(await awaitLiveAgent(store, 'f')).toBeUndefined()
    const agent = await createAgent({ model: scripted(), store, sessionId: 'f' })
    expect(findLiveAgent(store, 'f')).toBe(agent)
    await agent.close()
  })

  it('a newer open of a whole session replaces the older agent (a crash test abandons one); closing the older leaves the newer registered', async () => {
    const store = memoryStore()
    const abandoned = await createAgent({ model: scripted(), store, sessionId: 'c' })
    const reopened = await createAgent({ model: scripted(), store, sessionId: 'c' })
    expect(findLiveAgent(store, 'c')).toBe(reopened)
    await abandoned.close()
    expect(findLiveAgent(store, 'c')).toBe(reopened)
    await reopened.close()
    expect(findLiveAgent(store, 'c')).toBeUndefined()
  })

  it('liveAgents lists the whole, not-closing agents of one store', async () => {
    const store = memoryStore()
    const a = await createAgent({ model: scripted(), store, sessionId: 'a' })
    const b = await createAgent({ model: scripted(), store, sessionId: 'b' })
    const elsewhere = await createAgent({ model: scripted(), store: memoryStore(), sessionId: 'a' })
    expect(liveAgents(store)).toEqual([a, b])
    const closing = a.close()
    expect(liveAgents(store)).toEqual([b])
    await closing
    await b.close()
    expect(liveAgents(store)).toEqual([])
    await elsewhere.close()
  })

  it("newSession describes a missing session, made inside the agent's claim: an open racing it borrows the agent instead of opening the new session", async () => {
    const store = memoryStore()
    const made = gate()
    const building = createAgent({
      model: scripted(), store, sessionId: 'child',
      newSession: async () => {
        await made.promise
        return { header: { id: 'child', version: LOG_FORMAT_VERSION, createdAt: 1, delegation: { parentSessionId: 'p', callId: 'c', depth: 1, mode: 'continuable' } } }
      },
    })
    let opens = 0
    const racing = borrowOrOpen(store, 'child', async () => (opens++, createAgent({ model: scripted(), store, sessionId: 'child' })))
    made.open()
    const agent = await building
    expect(agent.session.header.delegation).toMatchObject({ parentSessionId: 'p' })
    expect(await racing).toEqual({ agent, borrowed: true })
    expect(opens).toBe(0)
    await agent.close()
    expect((await store.header!('child'))?.delegation).toMatchObject({ parentSessionId: 'p' })
    // It is used only when the store lacks the session; it must describe the one asked for.
    const again = await createAgent({ model: scripted(), store, sessionId: 'child', newSession: () => Promise.reject(new Error('not called')) })
    await again.close()
    const wrong = createAgent({ model: scripted(), store, sessionId: 'other', newSession: async () => ({ header: { id: 'stray', version: LOG_FORMAT_VERSION, createdAt: 1 } }) })
    await expect(wrong).rejects.toMatchObject({ code: ErrorCodes.INVALID_ARGUMENT })
    expect(findLiveAgent(store, 'other')).toBeUndefined()
    expect(await store.has!('stray')).toBe(false)
    await expect(createAgent({ model: scripted(), store, newSession: async () => ({ header: { id: 'x', version: LOG_FORMAT_VERSION, createdAt: 1 } }) })).rejects.toMatchObject({ code: ErrorCodes.INVALID_ARGUMENT })
  })

  it("openThroughParent asks the parent's offered opener (or every live agent's, without a parent id); the offer ends with the agent", async () => {
    const store = memoryStore()
    const asked: string[] = []
    /** A plugin that opens the sessions named `kid-*` as its children. */
    const delegating = definePlugin({
      name: 'delegating',
      setup(ctx) {
        offerChildOpener(ctx.store, ctx.session.header.id, async (childId) => {
          asked.push(`${ctx.session.header.id}:${childId}`)
          if (!childId.startsWith('kid-')) return undefined
          return (await borrowOrOpen(ctx.store, childId, () => createAgent({ model: scripted(), store: ctx.store, sessionId: childId }))).agent
        })
      },
    })
    const parent = await createAgent({ model: scripted(), store, sessionId: 'parent', plugins: [delegating] })
    const plain = await createAgent({ model: scripted(), store, sessionId: 'plain' })
    const kid = await openThroughParent(store, 'kid-1', 'parent')
    expect(kid?.session.header.id).toBe('kid-1')
    expect(findLiveAgent(store, 'kid-1')).toBe(kid)
    // Not its child, or no such parent here: nothing opened.
    expect(await openThroughParent(store, 'stranger', 'parent')).toBeUndefined()
    expect(await openThroughParent(store, 'kid-2', 'plain')).toBeUndefined()
    expect(await openThroughParent(store, 'kid-2', 'nobody')).toBeUndefined()
    // Without a parent id, every live agent that offered an opener is asked.
    expect((await openThroughParent(store, 'kid-3'))?.session.header.id).toBe('kid-3')
    expect(asked).toEqual(['parent:kid-1', 'parent:stranger', 'parent:kid-3'])
    await parent.close()
    expect(await openThroughParent(store, 'kid-4', 'parent')).toBeUndefined()
    expect(await openThroughParent(store, 'kid-4')).toBeUndefined()
    expect(asked).toHaveLength(3)
    for (const agent of [kid!, plain, findLiveAgent(store, 'kid-3')!]) await agent.close()
  })

  it('offerChildOpener outside an agent being built keeps nothing and says so', async () => {
    const store = memoryStore()
    const agent = await createAgent({ model: scripted(), store, sessionId: 'built' })
    for (const id of ['built', 'nothing']) expect(offerChildOpener(store, id, async () => agent)).toBe(false)
    expect(await openThroughParent(store, 'any', 'built')).toBeUndefined()
    // A failed build drops its offer: the next agent on the session offers none.
    const failing = definePlugin({
      name: 'failing',
      setup(ctx) {
        offerChildOpener(ctx.store, ctx.session.header.id, async () => agent)
        throw new Error('setup failed')
      },
    })
    await expect(createAgent({ model: scripted(), store, sessionId: 'p', plugins: [failing] })).rejects.toThrow('setup failed')
    const again = await createAgent({ model: scripted(), store, sessionId: 'p' })
    expect(await openThroughParent(store, 'any', 'p')).toBeUndefined()
    await again.close()
    await agent.close()
  })

  it('keeps its table on the store without changing what the store lists, and works on a frozen store too', async () => {
    const store = memoryStore()
    const keys = Object.keys(store).sort()
    const agent = await createAgent({ model: scripted(), store, sessionId: 'a' })
    expect(Object.keys(store).sort()).toEqual(keys)
    expect(findLiveAgent(store, 'a')).toBe(agent)
    await agent.close()
    expect(findLiveAgent(store, 'a')).toBeUndefined()

    const frozen = Object.freeze(memoryStore())
    const other = await createAgent({ model: scripted(), store: frozen, sessionId: 'a' })
    expect(findLiveAgent(frozen, 'a')).toBe(other)
    expect(findLiveAgent(store, 'a')).toBeUndefined()
    expect(liveAgents(frozen)).toEqual([other])
    await other.close()
    expect(liveAgents(frozen)).toEqual([])
  })
})
