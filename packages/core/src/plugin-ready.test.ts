// PluginContext.onReady: work that may start a turn waits until every plugin's setup is done, so
// no turn runs before a later plugin tapped its hooks; a setup that fails closes what earlier ones opened.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from './create-agent.js'
import { BosunError, ErrorCodes } from './errors.js'
import { definePlugin, type PluginContext } from './plugin.js'
import { memoryStore } from './store/memory.js'

/** A plugin that sends a follow-up as soon as the agent is ready (as a delegator delivering a recovered settlement would). */
const eager = definePlugin({
  name: 'eager',
  setup({ agent, onReady }) {
    onReady(() => void agent.followup('from a plugin'))
  },
})

describe('PluginContext.onReady', () => {
  it('runs after every later setup finished (an async one too), before createAgent resolves; the turn it starts sees the later taps', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const gated: string[] = []
    const later = definePlugin({
      name: 'later',
      async setup({ hooks }) {
        await gate
        hooks.preStep.tapPromise('later', async (decision) => (gated.push('pre-step'), decision))
      },
    })
    const store = memoryStore()
    const building = createAgent({ model: scripted({ responses: [{ text: 'ok' }] }), store, sessionId: 's', plugins: [eager, later] })
    let built = false
    void building.then(() => (built = true))
    // The later setup waits on the test: no turn may start meanwhile.
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
    expect(built).toBe(false)
    release()
    const agent = await building
    await agent.whenIdle()
    expect(gated).toEqual(['pre-step'])
    const types = agent.session.events.map((e) => e.type)
    expect(types).toContain('turn/start')
    await agent.close()
  })

  it('never runs when a later setup throws; the earlier plugins\' teardowns run and the session is released', async () => {
    const store = memoryStore()
    const tornDown: string[] = []
    const first = definePlugin({
      name: 'first',
      setup({ onClose, onReady, agent }) {
        onClose(() => void tornDown.push('first'))
        onReady(() => void agent.followup('must not run'))
      },
    })
    const failing = definePlugin({
      name: 'failing',
      async setup() {
        await Promise.resolve()
        throw new Error('no connection')
      },
    })
    const model = scripted({ responses: [{ text: 'never' }] })
    await expect(createAgent({ model, store, sessionId: 's', plugins: [first, failing] })).rejects.toSatisfy((error) =>
      BosunError.is(error, ErrorCodes.PLUGIN_SETUP_FAILED))
    expect(tornDown).toEqual(['first'])
    // Released and untouched: it reopens, with no turn and nothing queued.
    const reopened = await createAgent({ model, store, sessionId: 's' })
    expect(reopened.session.events.map((e) => e.type)).not.toContain('turn/start')
    expect(reopened.inbox.nextTurn).toHaveLength(0)
    await reopened.close()
  })

  it('is only for setup; a callback that throws is reported and the others still run', async () => {
    let context: PluginContext | undefined
    const order: string[] = []
    const plugin = definePlugin({
      name: 'p',
      setup(ctx) {
        context = ctx
        ctx.onReady(() => {
          throw new Error('boom')
        })
        ctx.onReady(() => void order.push('second'))
      },
    })
    const errors: string[] = []
    const reporter = definePlugin({ name: 'reporter', setup: ({ hooks }) => void hooks.error.tap('reporter', (_e, where) => void errors.push(where)) })
    const agent = await createAgent({ model: scripted({ responses: [] }), plugins: [reporter, plugin] })
    expect(order).toEqual(['second'])
    expect(errors).toEqual(['a plugin onReady callback'])
    expect(() => context!.onReady(() => {})).toThrow(/only during setup/)
    await agent.close()
  })
})
