// What a plugin's setup context gives beyond hooks: addTool, the store and the resolved config
// (SPEC §12, last sentence) — so a plugin can contribute tools and build agents.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from './create-agent.js'
import { BosunError } from './errors.js'
import { definePlugin, type PluginContext } from './plugin.js'
import { memoryStore } from './store/memory.js'
import { tool } from './testing/tools.js'
import type { Tool } from './tools/types.js'

describe('the plugin setup context', () => {
  it('addTool contributes a tool the model can call; it is sent after the agent\'s own tools', async () => {
    const calls: unknown[] = []
    const search = definePlugin({
      name: 'web-search',
      setup({ addTool }) {
        addTool(tool('search', (args) => (calls.push(args), 'three results'), { parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }))
      },
    })
    const model = scripted({ record: true, responses: [{ toolCalls: [{ name: 'search', args: { q: 'bosun' } }] }, { text: 'found it' }] })
    const agent = await createAgent({ model, tools: [tool('own', () => 'x')], plugins: [search] })
    agent.followup('look it up')
    await agent.whenIdle()
    expect(calls).toEqual([{ q: 'bosun' }])
    expect(model.recorded[0]!.tools).toEqual(['own', 'search'])
    const context = agent.session.events.find((e) => e.type === 'request/context')!.data as { tools: { name: string }[] }
    expect(context.tools.map((t) => t.name)).toEqual(['own', 'search'])
  })

  it('a malformed or duplicate tool fails setup naming the plugin; addTool after setup is refused', async () => {
    const bad = definePlugin({ name: 'bad-tool', setup: ({ addTool }) => addTool({ name: 'own' } as Tool) })
    const error = await createAgent({ model: scripted(), tools: [tool('own', () => 'x')], plugins: [bad] }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'PLUGIN_SETUP_FAILED')).toBe(true)
    expect((error as Error).message).toMatch(/bad-tool.*addTool\(\)/)

    let kept: PluginContext | undefined
    const late = definePlugin({ name: 'late', setup: (context) => void (kept = context) })
    await createAgent({ model: scripted(), plugins: [late] })
    const refused = (() => {
      try {
        kept!.addTool(tool('later', () => 'x'))
      } catch (e) {
        return e
      }
    })()
    expect(BosunError.is(refused, 'INVALID_TOOL')).toBe(true)
    expect((refused as Error).message).toMatch(/only during plugin setup/)
  })

  it('gives the agent\'s store and its resolved config, enough to build another agent like it', async () => {
    const store = memoryStore()
    let seen: PluginContext | undefined
    const spy = definePlugin({ name: 'spy', setup: (context) => void (seen = context) })
    const model = scripted({ responses: [{ text: 'parent' }, { text: 'child answer' }] })
    const own = tool('own', () => 'x')
    await createAgent({ model, store, system: 'be brief', tools: [own], plugins: [spy], maxParallelTools: 3, sessionId: 'parent' })
    expect(seen!.store).toBe(store)
    expect(seen!.config).toMatchObject({ model, store, system: 'be brief', tools: [own], maxParallelTools: 3 })
    expect(seen!.config.plugins).toEqual([spy])
    expect(Object.isFrozen(seen!.config)).toBe(true)
    // A child built from it lives in the same store.
    const child = await createAgent({ model: seen!.config.model, store: seen!.store, system: seen!.config.system, sessionId: 'child' })
    child.followup('hi')
    await child.whenIdle()
    expect((await store.list()).map((s) => s.id).sort()).toEqual(['child', 'parent'])
  })
})
