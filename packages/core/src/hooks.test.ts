import { describe, expect, it } from 'vitest'
import { ErrorCodes } from './errors.js'
import { createHooks } from './hooks.js'

// createHooks shares one register interceptor function and the argument-name arrays between
// agents (an idle session keeps its hooks): each agent's taps must still be wrapped with its own
// hook's name and its own reporter.
describe('createHooks', () => {
  it("wraps each agent's taps with that agent's reporter and that hook's name", () => {
    const reportedA: string[] = []
    const reportedB: string[] = []
    const a = createHooks((_error, context) => reportedA.push(context))
    const b = createHooks((_error, context) => reportedB.push(context))
    a.event.tap('plugin-a', () => { throw new Error('a broke') })
    b.status.tap('plugin-b', () => { throw new Error('b broke') })
    const seen: string[] = []
    a.event.tap('after-a', () => seen.push('a still runs'))
    a.event.call({ seq: 0, time: 0, type: 'turn/start', data: { turn: 1 } })
    b.status.call('idle')
    expect(reportedA).toEqual(['"plugin-a" observing session/event'])
    expect(reportedB).toEqual(['"plugin-b" observing agent/status'])
    expect(seen).toEqual(['a still runs'])
  })

  it('names the plugin and the hook when a tap of a waterfall hook fails, per agent', async () => {
    const a = createHooks()
    const b = createHooks()
    a.prepareCall.tapPromise('plugin-a', async () => { throw new Error('nope') })
    b.toolResult.tap('plugin-b', () => { throw new Error('nope') })
    await expect(a.prepareCall.promise({} as never, {} as never)).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_HOOK_FAILED, details: { plugin: 'plugin-a', hook: 'prepareCall' },
    })
    await expect(b.toolResult.promise({} as never, {} as never)).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_HOOK_FAILED, details: { plugin: 'plugin-b', hook: 'tool/result' },
    })
    // An untapped hook of the same kind in the other agent is untouched.
    expect(b.prepareCall.taps).toEqual([])
  })
})
