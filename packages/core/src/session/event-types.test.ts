import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { BosunError } from '../errors.js'
import { definePlugin } from '../plugin.js'
import { memoryStore } from '../store/memory.js'

const counter = (ignorable: boolean) =>
  definePlugin({
    name: 'counter',
    events: { 'counter/tick': { ignorable } },
    setup({ hooks, session }) {
      hooks.preStep.tapPromise('counter', async (decision) => {
        session.append('counter/tick', { n: 1 })
        return decision
      })
    },
  })

async function sessionWith(ignorable: boolean) {
  const store = memoryStore()
  const agent = await createAgent({ model: scripted(), store, sessionId: 's', plugins: [counter(ignorable)] })
  agent.followup('hi')
  await agent.whenIdle()
  await agent.close()
  return store
}

describe('event types of plugins in a stored session', () => {
  it('opens when the plugin that declared the type is configured', async () => {
    const store = await sessionWith(false)
    const agent = await createAgent({ model: scripted(), store, sessionId: 's', plugins: [counter(false)] })
    expect(agent.session.events.some((event) => event.type === 'counter/tick')).toBe(true)
  })

  it('refuses a session holding an undeclared, non-ignorable type, naming type, seq and plugin', async () => {
    const store = await sessionWith(false)
    const error = await createAgent({ model: scripted(), store, sessionId: 's' }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'UNKNOWN_EVENT_TYPE')).toBe(true)
    expect((error as Error).message).toMatch(/unknown type "counter\/tick" at seq \d+\. Add the plugin that writes it \(probably "counter"\)/)
  })

  it('marks events of an ignorable type and opens without the plugin', async () => {
    const store = await sessionWith(true)
    const agent = await createAgent({ model: scripted(), store, sessionId: 's' })
    const tick = agent.session.events.find((event) => event.type === 'counter/tick')
    expect(tick?.ignorable).toBe(true)
    expect(agent.session.events.find((event) => event.type === 'turn/start')?.ignorable).toBeUndefined()
  })

  it('refuses a plugin whose declared event type is not a noun/phase name', () => {
    expect(() => definePlugin({ name: 'bad', events: { Tick: {} }, setup() {} })).toThrow(/"Tick" is not a "noun\/phase" name/)
  })
})
