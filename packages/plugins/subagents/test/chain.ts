// The three-level chain (parent → child → grandchild), one scenario run on each durable store.
import { expect } from 'vitest'
import type { Store } from '@bosun/core'
import { childIds, ofType, parent, read, textOf, toolResults } from './harness.js'

const script = {
  plan: [{ toolCalls: [{ name: 'spawn_agent', id: 'p1', args: { task: 'research' } }] }, { text: 'final: plan made' }],
  research: [{ toolCalls: [{ name: 'spawn_agent', id: 'r1', args: { task: 'measure' } }] }, { toolCalls: [{ name: 'report', args: { content: 'research says 42' } }] }, { text: 'ok' }],
  measure: [{ toolCalls: [{ name: 'report', args: { content: '42' } }] }, { text: 'measured' }],
}

/**
 * Runs the chain on `open()`'s store, closes it, and checks the tree through a second `open()` of
 * the same storage (as a new process would see it): answers travelled up, each level's depth and
 * delegation header are stored, and the parent reopens without settling anything twice.
 */
export async function threeLevelChain(open: () => Store): Promise<void> {
  const store = open()
  const root = await parent({ store, script })
  root.followup('plan')
  await root.whenIdle()
  expect(textOf(toolResults(root.session.events)[0]!.content)).toBe('research says 42')
  const [childId] = childIds(root.session.events)
  await root.close()
  await store.close()

  const reopened = open()
  const child = await read(reopened, childId!)
  expect(child.header.delegation).toEqual({ parentSessionId: 'root', callId: 'p1', depth: 1, mode: 'one-shot' })
  expect(textOf(toolResults(child.events)[0]!.content)).toBe('42')
  const [grandchildId] = childIds(child.events)
  expect(ofType(child.events, 'subagent/spawned')[0]!.data).toMatchObject({ depth: 2, callId: 'r1' })
  expect(ofType(child.events, 'subagent/settled').map((e) => e.data)).toEqual([{ childId: grandchildId, epoch: 1, reason: 'completed', answer: '42' }])
  const grandchild = await read(reopened, grandchildId!)
  expect(grandchild.header.delegation).toEqual({ parentSessionId: childId, callId: 'r1', depth: 2, mode: 'one-shot' })
  expect(ofType(grandchild.events, 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['completed'])

  // the parent reopens with its children's events in the logs; nothing is settled twice
  const again = await parent({ store: reopened, script })
  expect(ofType(again.session.events, 'subagent/settled')).toHaveLength(1)
  expect(again.inbox.hasPending).toBe(false)
  await again.close()
  await reopened.close()
}
