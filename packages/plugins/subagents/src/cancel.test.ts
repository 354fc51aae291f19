import { describe, expect, it } from 'vitest'
import { memoryStore, type SessionEvent, type Store, type StoredSession, type TurnEndReason } from '@bosun/core'
import { childIds, eventsOf, eventually, gate, ofType, parent, read, textOf, toolResults, until } from '../test/harness.js'

const lastEnd = (events: readonly SessionEvent[]) => (ofType(events, 'turn/end').at(-1)?.data as { reason: TurnEndReason } | undefined)?.reason.kind
const hang = { text: 'never finishes', delayMs: 600_000 }

async function withForegroundChild(store: Store) {
  const root = await parent({ store, script: { go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'slow' } }] }, { text: 'ok' }], slow: [hang] } })
  root.followup('go')
  await until(() => childIds(root.session.events).length === 1, 'the spawn')
  const childId = childIds(root.session.events)[0]!
  await eventually(async () => (await eventsOf(store, childId)).some((e) => e.type === 'step/start'), "the child's model call")
  return { root, childId }
}

describe('cancel matrix', () => {
  for (const how of ['abort', 'cancel'] as const) {
    it(`foreground × ${how}: the child is canceled and the tool result says aborted`, async () => {
      const store = memoryStore()
      const { root, childId } = await withForegroundChild(store)
      how === 'abort' ? root.abort() : root.cancel()
      await until(() => toolResults(root.session.events).length === 1, 'the tool result')
      await root.whenIdle()
      const [result] = toolResults(root.session.events)
      expect(result!.isError).toBe(true)
      expect(textOf(result!.content)).toContain('aborted')
      const child = await read(store, childId)
      expect(lastEnd(child.events)).toBe('aborted')
      expect(ofType(root.session.events, 'subagent/settled').map((e) => e.data)).toEqual([{ childId, epoch: 1, reason: 'aborted', answer: '' }])
      await root.close()
    })
  }

  it('background × abort: the child keeps running and settles later', async () => {
    const release = gate()
    const store = memoryStore()
    const root = await parent({
      store,
      tools: [{ name: 'block', description: 'blocks', parameters: { type: 'object' }, execute: async () => { await release.promise; return 'unblocked' } }],
      script: {
        go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'bg', mode: 'background' } }] }, hang],
        bg: [{ toolCalls: [{ name: 'block', args: {} }] }, { text: 'background result' }],
      },
    })
    root.followup('go')
    await until(() => ofType(root.session.events, 'step/start').length === 2, 'the parent to wait in its second step')
    root.abort()
    await root.whenIdle()
    expect(lastEnd(root.session.events)).toBe('aborted')
    release.open()
    await until(() => ofType(root.session.events, 'subagent/settled').length === 1, 'the settlement')
    const childId = childIds(root.session.events)[0]!
    expect(lastEnd((await read(store, childId)).events)).toBe('completed')
    await root.close()
  })

  it("background × cancel: the parent's cancel() cancels the child; its settlement is queued without waking the parent", async () => {
    const store = memoryStore()
    const root = await parent({
      store,
      script: { go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'bg', mode: 'background' } }] }, hang], bg: [hang] },
    })
    root.followup('go')
    await until(() => ofType(root.session.events, 'step/start').length === 2, 'the parent to wait in its second step')
    const childId = childIds(root.session.events)[0]!
    root.cancel()
    await until(() => ofType(root.session.events, 'subagent/settled').length === 1, 'the settlement')
    await root.whenIdle()
    expect(lastEnd((await read(store, childId)).events)).toBe('aborted')
    expect(root.status).toBe('idle')
    expect(root.inbox.nextTurn.map((m) => m.id)).toEqual([`settle:${childId}:1`])
    expect(ofType(root.session.events, 'turn/start')).toHaveLength(1)
    await root.close()
  })
})

describe('close', () => {
  it('closing the parent closes its children first, child-first down the tree', async () => {
    const inner = memoryStore()
    const closed: string[] = []
    const store: Store = {
      ...inner,
      name: 'recording',
      async create(header, seed) { return track(await inner.create(header, seed)) },
      async open(id) { const s = await inner.open(id); return s && track(s) },
    }
    function track(stored: StoredSession): StoredSession {
      const close = stored.writer.close.bind(stored.writer)
      return { ...stored, writer: { ...stored.writer, append: stored.writer.append.bind(stored.writer), flush: stored.writer.flush.bind(stored.writer), close: async () => { closed.push(stored.header.id); await close() } } }
    }
    const root = await parent({
      store,
      script: {
        go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'mid', mode: 'background' } }] }, { text: 'ok' }],
        mid: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'leaf', mode: 'background' } }] }, { text: 'mid waits' }],
        leaf: [hang],
      },
    })
    root.followup('go')
    await until(() => childIds(root.session.events).length === 1, 'the child')
    const mid = childIds(root.session.events)[0]!
    await eventually(async () => childIds(await eventsOf(inner, mid)).length === 1, 'the grandchild')
    const leaf = childIds(await eventsOf(inner, mid))[0]!
    await eventually(async () => (await eventsOf(inner, leaf)).some((e) => e.type === 'step/start'), "the grandchild's model call")
    closed.length = 0
    await root.close()
    expect(closed.filter((id) => [leaf, mid, 'root'].includes(id))).toEqual([leaf, mid, 'root'])
  })
})
