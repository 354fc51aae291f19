import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgentFromConfig } from '@bosun/core/config'
import { memoryStore } from '@bosun/core'
import { ofType, textOf, toolResults } from '../test/harness.js'

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..')

describe('from a config file', () => {
  it("a profile's model entry names its adapter; the loader resolves it and each child gets an adapter made from it", async () => {
    const agent = await createAgentFromConfig(
      {
        model: { adapter: 'scripted', options: { responses: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'check', agent: 'checker' } }] }, { text: 'ok' }] } },
        plugins: [['./src/index.ts', { agents: { checker: { system: 'You check.', model: { adapter: 'scripted', options: { responses: [{ text: 'checked by the profile model' }] } } } } }]],
      },
      { cwd: packageDir, store: memoryStore(), sessionId: 'root' },
    )
    agent.followup('go')
    await agent.whenIdle()
    expect(textOf(toolResults(agent.session.events)[0]!.content)).toBe('checked by the profile model')
    expect(ofType(agent.session.events, 'subagent/spawned')[0]!.data).toMatchObject({ agent: 'checker', depth: 1 })
    await agent.close()
  })
})
