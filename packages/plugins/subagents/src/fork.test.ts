import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { memoryStore, type ModelRequest, type Tool } from '@bosun/core'
import { childIds, ofType, parent, read, textOf, toolResults, until } from '../test/harness.js'

describe('context: fork', () => {
  it("seeds the child with the parent's completed turns; the child's own history starts after them", async () => {
    const store = memoryStore()
    const lastUser = (request: ModelRequest) => {
      const users = request.messages.filter((m) => m.role === 'user')
      const last = users[users.length - 1]
      return last && last.role === 'user' ? textOf(last.content as never) : ''
    }
    const root = await parent({
      store,
      script: {
        'my name is Ada': [
          { text: 'hello Ada' },
          (request) => lastUser(request) === 'what is my name?'
            ? { text: request.messages.length > 2 ? 'Ada, from the forked history' : 'no idea' }
            : { toolCalls: [{ name: 'spawn_agent', args: { task: 'what is my name?', context: 'fork' } }] },
          { text: 'ok' },
        ],
      },
    })
    root.followup('my name is Ada')
    await root.whenIdle()
    root.followup('ask a child my name')
    await root.whenIdle()
    expect(textOf(toolResults(root.session.events)[0]!.content)).toBe('Ada, from the forked history')
    const child = await read(store, childIds(root.session.events)[0]!)
    expect(child.header.parent).toBe('root')
    expect(child.header.delegation).toMatchObject({ parentSessionId: 'root', depth: 1, mode: 'one-shot' })
    const seed = child.events.slice(0, child.header.seedLength)
    expect(seed.at(-1)!.type).toBe('session/end-seed')
    // only the completed first turn is copied, not the running one
    expect(ofType(seed, 'turn/end')).toHaveLength(1)
    await root.close()
  })
})
