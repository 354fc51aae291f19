import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { sqliteStore } from './store.js'
import { tempDatabase } from './testing/temp.js'

let file: string
let cleanup: () => Promise<void>
beforeEach(async () => {
  ;({ file, cleanup } = await tempDatabase())
})
afterEach(() => cleanup())

describe('sqlite store — with an agent', () => {
  it('resumes a session with a new agent and a new store: turn counter, surface and log restored', async () => {
    const store = sqliteStore({ file })
    const agent = await createAgent({
      model: scripted({ responses: [{ text: 'one' }, { text: 'two', chunkSize: 1 }, { toolCalls: [{ name: 'missing' }] }, { text: 'three' }] }),
      store,
      sessionId: 'x',
    })
    agent.followup('first')
    await agent.whenIdle()
    agent.followup('second')
    agent.followup('third')
    await agent.whenIdle()
    const turn = agent.turn
    const messages = agent.surface.messages.length
    const events = JSON.stringify(agent.session.events)
    expect(turn).toBe(3)
    expect(messages).toBeGreaterThanOrEqual(6)
    await agent.close()
    await store.close()

    const reopened = sqliteStore({ file })
    const resumed = await createAgent({ model: scripted({ responses: [{ text: 'four' }] }), store: reopened, sessionId: 'x' })
    expect(resumed.turn).toBe(turn)
    expect(resumed.surface.messages.length).toBe(messages)
    expect(JSON.stringify(resumed.session.events)).toBe(events)
    resumed.followup('fourth')
    await resumed.whenIdle()
    expect(resumed.turn).toBe(turn + 1)
    await resumed.close()
    expect(await reopened.list()).toMatchObject([{ id: 'x', length: resumed.session.length }])
    await reopened.close()
  })
})
