// createAgentFromConfig({ signal }): the signal reaches createAgent, so a build whose plugin setup
// never settles is given up (OPEN_ABORTED) and the session released — what a host built from a
// config (`createHost({ config })`, `bosun serve`) relies on at `limits.openTimeoutMs`.
import { describe, expect, it } from 'vitest'
import { defineAdapter } from '../adapter.js'
import { BosunError } from '../errors.js'
import { definePlugin } from '../plugin.js'
import { memoryStore } from '../store/memory.js'
import { createAgentFromConfig } from './create.js'

const silent = defineAdapter({
  name: 'silent',
  create: () => ({ name: 'silent', async *stream() {} }),
})

describe('createAgentFromConfig({ signal })', () => {
  it('gives up a build whose plugin setup never settles when the signal aborts; the session can be opened again', async () => {
    const store = memoryStore()
    const seen: AbortSignal[] = []
    const torn: string[] = []
    const first = definePlugin({ name: 'first', setup: ({ onClose }) => onClose(() => void torn.push('first')) })
    const hangs = definePlugin({
      name: 'hangs',
      async setup({ signal }) {
        seen.push(signal)
        await new Promise<never>(() => {})
      },
    })
    const controller = new AbortController()
    const building = createAgentFromConfig({ model: { adapter: silent }, plugins: [first, hangs] }, { store, sessionId: 's', signal: controller.signal })
    await expect.poll(() => seen.length).toBe(1)
    controller.abort()
    const error = await building.then(() => undefined, (thrown: unknown) => thrown)
    expect(BosunError.is(error, 'OPEN_ABORTED')).toBe(true)
    expect((error as BosunError).details).toMatchObject({ sessionId: 's', plugin: 'hangs' })
    expect(seen[0]?.aborted).toBe(true)
    expect(torn).toEqual(['first'])
    // Released: the same store opens the session for another agent.
    const again = await createAgentFromConfig({ model: { adapter: silent }, plugins: [first] }, { store, sessionId: 's' })
    expect(again.session.header.id).toBe('s')
    await again.close()
  })

  it('builds as before when the signal never aborts', async () => {
    const agent = await createAgentFromConfig({ model: { adapter: silent } }, { store: memoryStore(), signal: new AbortController().signal })
    expect(agent.status).toBe('idle')
    await agent.close()
  })
})
