// PluginContext.afterSetup: a check of the agent as every setup left it (its sealed tool set), whose
// throw fails createAgent as a setup's would — teardowns run, nothing left in the store.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from './create-agent.js'
import { BosunError, ErrorCodes } from './errors.js'
import { optionsError } from './schema.js'
import { definePlugin, type BuiltAgent, type PluginContext } from './plugin.js'
import { memoryStore } from './store/memory.js'
import type { Tool } from './tools/types.js'

const tool = (name: string): Tool => ({ name, description: name, parameters: { type: 'object' }, execute: () => name })
const model = () => scripted({ responses: [{ text: 'ok' }] })

describe('PluginContext.afterSetup', () => {
  it('runs each check once, in registration order, after every setup (a later plugin\'s tools sealed in) and before onReady', async () => {
    const order: string[] = []
    const seen: BuiltAgent[] = []
    const checking = definePlugin({
      name: 'checking',
      setup({ afterSetup, onReady }) {
        order.push('setup checking')
        afterSetup((built) => void (order.push('check 1'), seen.push(built)))
        afterSetup(async () => {
          await Promise.resolve()
          order.push('check 2')
        })
        onReady(() => void order.push('ready'))
      },
    })
    const later = definePlugin({
      name: 'later',
      setup({ addTool, afterSetup }) {
        order.push('setup later')
        addTool(tool('web'))
        afterSetup(() => void order.push('check 3'))
      },
    })
    const agent = await createAgent({ model: model(), tools: [tool('read')], plugins: [checking, later] })
    expect(order).toEqual(['setup checking', 'setup later', 'check 1', 'check 2', 'check 3', 'ready'])
    expect(seen).toEqual([{ toolNames: ['read', 'web'] }])
    expect(Object.isFrozen(seen[0]!.toolNames)).toBe(true)
    await agent.close()
  })

  it('a check that throws fails createAgent naming the plugin: later checks and onReady do not run, teardowns do, no session is stored', async () => {
    const store = memoryStore()
    const ran: string[] = []
    const strict = definePlugin({
      name: 'strict',
      setup({ afterSetup, onClose, onReady }) {
        onClose(() => void ran.push('teardown'))
        onReady(() => void ran.push('ready'))
        afterSetup(async ({ toolNames }) => {
          if (!toolNames.includes('web')) throw new Error('needs a "web" tool; add a plugin that provides one')
        })
        afterSetup(() => void ran.push('second check'))
      },
    })
    const error = await createAgent({ model: model(), store, sessionId: 's', plugins: [strict] }).catch((caught: unknown) => caught)
    expect(BosunError.is(error, ErrorCodes.PLUGIN_SETUP_FAILED)).toBe(true)
    expect((error as BosunError).message).toBe('Plugin "strict" failed its afterSetup check: needs a "web" tool; add a plugin that provides one')
    expect((error as BosunError).details).toEqual({ plugin: 'strict' })
    expect(ran).toEqual(['teardown'])
    expect(await store.list()).toEqual([])
  })

  it('an options error from a check reaches the caller as it is', async () => {
    const refused = optionsError('plugin "strict" (plugins[0])', [{ keys: ['tool'], message: 'names no tool', found: 'Web' }])
    const strict = definePlugin({ name: 'strict', setup: ({ afterSetup }) => afterSetup(() => { throw refused }) })
    await expect(createAgent({ model: model(), plugins: [strict] })).rejects.toBe(refused)
  })

  it('is only for setup, and takes a function', async () => {
    let context: PluginContext | undefined
    const keeper = definePlugin({ name: 'keeper', setup: (ctx) => void (context = ctx) })
    const agent = await createAgent({ model: model(), plugins: [keeper] })
    expect(() => context!.afterSetup(() => {})).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_ARGUMENT, message: expect.stringMatching(/only during setup/) }))
    await agent.close()
    const wrong = definePlugin({ name: 'wrong', setup: ({ afterSetup }) => afterSetup('later' as never) })
    await expect(createAgent({ model: model(), plugins: [wrong] })).rejects.toThrow('Plugin "wrong" failed in setup: afterSetup(check): check must be a function.')
  })
})
