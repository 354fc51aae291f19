import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { childIds, ofType, parent, read, textOf, toolResults } from '../test/harness.js'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

describe('a three-level chain on the JSONL store', () => {
  it('parent → child → grandchild: answers travel up, depths and delegation headers are stored, and the tree reopens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bosun-subagents-'))
    dirs.push(dir)
    const script = {
      plan: [{ toolCalls: [{ name: 'spawn_agent', id: 'p1', args: { task: 'research' } }] }, { text: 'final: plan made' }],
      research: [{ toolCalls: [{ name: 'spawn_agent', id: 'r1', args: { task: 'measure' } }] }, { toolCalls: [{ name: 'report', args: { content: 'research says 42' } }] }, { text: 'ok' }],
      measure: [{ toolCalls: [{ name: 'report', args: { content: '42' } }] }, { text: 'measured' }],
    }
    const store = jsonlStore({ dir })
    const root = await parent({ store, script })
    root.followup('plan')
    await root.whenIdle()
    expect(textOf(toolResults(root.session.events)[0]!.content)).toBe('research says 42')
    const [childId] = childIds(root.session.events)
    await root.close()
    await store.close()

    const reopened = jsonlStore({ dir })
    const child = await read(reopened, childId!)
    expect(child.header.delegation).toEqual({ parentSessionId: 'root', callId: 'p1', depth: 1, mode: 'one-shot' })
    expect(textOf(toolResults(child.events)[0]!.content)).toBe('42')
    const [grandchildId] = childIds(child.events)
    expect(ofType(child.events, 'subagent/spawned')[0]!.data).toMatchObject({ depth: 2, callId: 'r1' })
    const grandchild = await read(reopened, grandchildId!)
    expect(grandchild.header.delegation).toEqual({ parentSessionId: childId, callId: 'r1', depth: 2, mode: 'one-shot' })

    // the parent reopens with its children's events in the logs; nothing is settled twice
    const again = await parent({ store: reopened, script })
    expect(ofType(again.session.events, 'subagent/settled')).toHaveLength(1)
    expect(again.inbox.hasPending).toBe(false)
    await again.close()
    await reopened.close()
  })
})
