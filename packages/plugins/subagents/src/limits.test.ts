import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { memoryStore, type ModelRequest, type Tool } from '@bosun/core'
import { childIds, ofType, parent, read, textOf, toolResults, until } from '../test/harness.js'

describe('limits', () => {
  it('a spawn whose child would exceed maxDepth is refused with an error result the model sees', async () => {
    const store = memoryStore()
    const root = await parent({
      store,
      options: { maxDepth: 1 },
      script: {
        top: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'middle' } }] }, { text: 'ok' }],
        middle: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'bottom' } }] }, { text: 'could not delegate' }],
      },
    })
    root.followup('top')
    await root.whenIdle()
    expect(textOf(toolResults(root.session.events)[0]!.content)).toBe('could not delegate')
    const child = await read(store, childIds(root.session.events)[0]!)
    const [refused] = toolResults(child.events)
    expect(refused!.isError).toBe(true)
    expect(textOf(refused!.content)).toContain('SUBAGENT_DEPTH_EXCEEDED')
    expect(ofType(child.events, 'subagent/spawned')).toHaveLength(0)
    await root.close()
  })

  it("an agent at maxDepth is told in spawn_agent's description that a spawn there is refused; one above it is not", async () => {
    const seen = new Map<string, string>()
    const spawnDescription = (key: string) => (request: ModelRequest) => {
      seen.set(key, request.tools.find((tool) => tool.name === 'spawn_agent')!.description)
      return key === 'top' ? { toolCalls: [{ name: 'spawn_agent', args: { task: 'middle' } }] } : { text: 'done' }
    }
    const root = await parent({ options: { maxDepth: 1 }, script: { top: [spawnDescription('top'), { text: 'ok' }], middle: [spawnDescription('middle')] } })
    root.followup('top')
    await root.whenIdle()
    expect(seen.get('top')).not.toContain('deepest')
    // Without it, a model at the bottom of the tree spends a step on a spawn that is always refused.
    expect(seen.get('middle')).toContain('You are at the deepest level allowed (depth 1, maxDepth 1): spawn_agent is refused here; do the work yourself.')
    await root.close()
  })

  it('spawns over maxLiveChildren are refused in call order; a settled child frees its place', async () => {
    const root = await parent({
      options: { maxLiveChildren: 2 },
      script: {
        fan: [
          { toolCalls: ['a', 'b', 'c'].map((task, i) => ({ name: 'spawn_agent', id: `s${i}`, args: { task, mode: 'background' } })) },
          { text: 'spawned' },
        ],
      },
    })
    root.followup('fan')
    await until(() => ofType(root.session.events, 'subagent/settled').length === 2 && root.status === 'idle', 'both children to settle')
    const results = toolResults(root.session.events).slice(0, 3)
    expect(results.map((r) => Boolean(r.isError))).toEqual([false, false, true])
    expect(textOf(results[2]!.content)).toContain('SUBAGENT_TOO_MANY_LIVE: 2 child agents are already live (maxLiveChildren 2). Wait for one to settle, or do this yourself.')
    expect(childIds(root.session.events)).toHaveLength(2)
    await root.close()
  })

  it('a settled child frees its place, and is live again when woken: send_to_agent over the limit is refused', async () => {
    let root!: Awaited<ReturnType<typeof parent>>
    root = await parent({
      options: { maxLiveChildren: 1 },
      script: {
        go: [
          { toolCalls: [{ name: 'spawn_agent', args: { task: 'quick', mode: 'background' } }] },
          { text: 'waiting' },
          { toolCalls: [{ name: 'spawn_agent', args: { task: 'hang', mode: 'background' } }] },
          () => ({ toolCalls: [{ name: 'send_to_agent', args: { childId: childIds(root.session.events)[0]!, message: 'again' } }] }),
          { text: 'ok' },
        ],
        hang: [{ text: 'never finishes', delayMs: 600_000 }],
      },
    })
    root.followup('go')
    await until(() => toolResults(root.session.events).length === 3 && root.status === 'idle', 'the three calls')
    const [first, second, sent] = toolResults(root.session.events)
    expect(first!.isError).toBeFalsy()
    expect(second!.isError).toBeFalsy()
    expect(textOf(second!.content)).toContain('Started background agent')
    expect(sent!.isError).toBe(true)
    // One live child: the count and its verb agree ("1 child agents are already live" before).
    expect(textOf(sent!.content)).toContain('SUBAGENT_TOO_MANY_LIVE: 1 child agent is already live (maxLiveChildren 1). Wait for it to settle, or do this yourself.')
    await root.close()
  })

  it('a child can address only its own children: another id is an error result', async () => {
    const root = await parent({
      script: {
        poke: [{ toolCalls: [{ name: 'interrupt_agent', args: { childId: 'root' } }, { name: 'send_to_agent', args: { childId: 'nobody', message: 'hi' } }] }, { text: 'ok' }],
      },
    })
    root.followup('poke')
    await root.whenIdle()
    const results = toolResults(root.session.events)
    expect(results.map((r) => r.isError)).toEqual([true, true])
    for (const r of results) expect(textOf(r.content)).toContain('SUBAGENT_UNKNOWN_CHILD')
    await root.close()
  })

  it('options are validated by the JSON Schema before setup', async () => {
    await expect(parent({ options: { maxDepth: -1 } })).rejects.toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID' })
    await expect(parent({ options: { onRecover: 'later' as never } })).rejects.toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID' })
    await expect(parent({ options: { agents: { x: { tools: 'all' as never } } } })).rejects.toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID' })
  })
})
