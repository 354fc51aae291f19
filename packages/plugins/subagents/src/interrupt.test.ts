import { describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import { childIds, ofType, parent, startedId, textOf, toolResults, until } from '../test/harness.js'

describe('interrupt_agent and list_agents', () => {
  it("interrupt_agent aborts the child's turn; it settles as aborted and the parent hears of it", async () => {
    const root = await parent({
      script: {
        go: [
          { toolCalls: [{ name: 'spawn_agent', args: { task: 'slow', mode: 'background' } }] },
          (request): ScriptedResponse => ({ toolCalls: [{ name: 'list_agents', args: {} }, { name: 'interrupt_agent', args: { childId: startedId(request) } }] }),
          { text: 'interrupted it' },
        ],
        slow: [{ text: 'never finishes', delayMs: 600_000 }],
      },
    })
    root.followup('go')
    await until(() => ofType(root.session.events, 'subagent/settled').length === 1, 'the settlement')
    await root.whenIdle()
    const [childId] = childIds(root.session.events)
    const [, listed, interrupted] = toolResults(root.session.events)
    expect(JSON.parse(textOf(listed!.content))).toMatchObject({ childId, mode: 'background', live: true, settlements: 0 })
    expect(textOf(interrupted!.content)).toContain(`Interrupted ${childId}`)
    const settle = ofType(root.session.events, 'user/message').map((e) => e.data as { id: string; content: { text?: string }[] }).find((m) => m.id === `settle:${childId}:1`)!
    expect(settle.content[0]!.text).toContain('stopped (aborted)')
    await root.close()
  })

  it('interrupt_agent on an idle child says there was nothing to interrupt: no settlement will come of it', async () => {
    const root = await parent({
      script: {
        go: [
          { toolCalls: [{ name: 'spawn_agent', args: { task: 'quick', mode: 'background' } }] },
          { text: 'waiting' },
          // Seen once the child settled, so it is idle: an abort would stop nothing.
          (request): ScriptedResponse => ({ toolCalls: [{ name: 'interrupt_agent', args: { childId: startedId(request) } }] }),
          { text: 'ok' },
        ],
        quick: [{ text: 'quick answer' }],
      },
    })
    root.followup('go')
    await until(() => toolResults(root.session.events).length === 2 && root.status === 'idle', 'the interrupt')
    const [childId] = childIds(root.session.events)
    const interrupted = toolResults(root.session.events)[1]!
    expect(textOf(interrupted.content)).toBe(`Agent ${childId} is not running a turn (it is idle): nothing to interrupt, and no settlement comes of this.`)
    await root.close()
  })

  it('list_agents with no children says so', async () => {
    const root = await parent({ script: { go: [{ toolCalls: [{ name: 'list_agents', args: {} }] }, { text: 'none' }] } })
    root.followup('go')
    await root.whenIdle()
    expect(textOf(toolResults(root.session.events)[0]!.content)).toBe('No child agents.')
    await root.close()
  })
})
