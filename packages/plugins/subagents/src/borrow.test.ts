// A child session another part of the process already runs (a host opened it because a user wrote
// to it) is borrowed by the parent, never opened a second time and never closed by the parent;
// when its owner closes it, the parent forgets it and opens it itself on the next send.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import { createAgent, definePlugin, findLiveAgent, memoryStore, type ModelRequest, type Plugin, type Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import subagents from './index.js'
import { brain, childIds, gate, ofType, parent, startedId, textOf, toolResults, until } from '../test/harness.js'

/** The root answers its last message: "go" spawns, "again" sends to the child, anything else is acknowledged. */
function rootAnswer(request: ModelRequest): ScriptedResponse {
  const last = request.messages.at(-1)!
  const said = last.role === 'user' ? textOf(last.content as { type: string; text?: string }[]) : ''
  if (said === 'go') return { toolCalls: [{ name: 'spawn_agent', args: { task: 'dig', mode: 'background' } }] }
  if (said.startsWith('again')) return { toolCalls: [{ name: 'send_to_agent', args: { childId: startedId(request), message: said } }] }
  return { text: 'ok' }
}
const script = { go: Array.from({ length: 40 }, () => rootAnswer), dig: [{ text: 'first' }, { text: 'second' }, { text: 'third' }] }

const settledAnswers = (events: readonly { type: string; data: unknown }[]) =>
  ofType(events as never, 'subagent/settled').map((e) => (e.data as { epoch: number; answer: string })).map((d) => [d.epoch, d.answer])

/**
 * A parent that spawned a background child (settled once) and closed; then another owner (a host,
 * say) opens the child, and the parent is reopened and sends it "again…": the second settlement.
 */
/** The stores the tests made, closed at each test's end: a JSONL store left open keeps its journal file open. */
const stores: Store[] = []

async function borrowedBySend(kind: string, dir: string, ownerPlugins: Plugin[] = []) {
  const store = kind === 'memory' ? memoryStore() : jsonlStore({ dir })
  stores.push(store)
  const first = await parent({ store, script })
  first.followup('go')
  await until(() => ofType(first.session.events, 'subagent/settled').length === 1, 'the first settlement')
  await first.whenIdle()
  const [childId] = childIds(first.session.events) as [string]
  await first.close()
  // Nothing holds the child now: the other owner opens it.
  const owner = await createAgent({ model: brain(script), store, sessionId: childId, plugins: [subagents, ...ownerPlugins] })
  const root = await parent({ store, script })
  root.followup('again, please')
  await until(() => ofType(root.session.events, 'subagent/settled').length === 2, 'the second settlement')
  return { store, childId, owner, root }
}

describe.each([['memory'], ['JSONL']])('a child another part of the process runs (%s store)', (kind) => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bosun-borrow-'))
  })
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('is borrowed by send_to_agent, let go (not closed) by the parent, and reopened by the parent once its owner closed it (a send during the close waits for it)', async () => {
    const release = gate()
    const slowClose = definePlugin({ name: 'slow-close', setup: ({ onClose }) => onClose(() => release.promise) })
    const { store, childId, owner, root } = await borrowedBySend(kind, dir, [slowClose])
    expect(textOf(toolResults(root.session.events).at(-1)!.content)).toContain(`Sent to ${childId}`)
    // The owner's agent did the work: one writer on the child's log.
    expect(ofType(owner.session.events, 'turn/end')).toHaveLength(2)
    expect(findLiveAgent(store, childId)).toBe(owner)
    // The owner closes it — slowly: the parent's next send comes while it is closing, waits for
    // the close, forgets the owner's agent and opens the child itself.
    await root.whenIdle()
    const closing = owner.close()
    root.followup('again, once more')
    await until(() => ofType(root.session.events, 'tool/call').filter((e) => (e.data as { name: string }).name === 'send_to_agent').length === 2, 'the second send')
    release.open()
    await closing
    await until(() => ofType(root.session.events, 'subagent/settled').length === 3, 'the third settlement')
    expect(textOf(toolResults(root.session.events).at(-1)!.content)).toContain(`Sent to ${childId}`)
    const reopened = findLiveAgent(store, childId)
    expect(reopened).toBeDefined()
    expect(reopened).not.toBe(owner)
    expect(settledAnswers(root.session.events)).toEqual([[1, 'first'], [2, 'second'], [3, 'third']])
    expect(ofType(root.session.events, 'agent/error')).toEqual([])
    // The parent owns this one: closing the parent closes it.
    await root.close()
    expect(findLiveAgent(store, childId)).toBeUndefined()
  })

  it('closing the parent lets a borrowed child go: its owner keeps it open and working', async () => {
    const { store, childId, owner, root } = await borrowedBySend(kind, dir)
    await root.close()
    expect(findLiveAgent(store, childId)).toBe(owner)
    owner.followup('still here?')
    await owner.whenIdle()
    expect(ofType(owner.session.events, 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['completed', 'completed', 'completed'])
    await owner.close()
  })
})
