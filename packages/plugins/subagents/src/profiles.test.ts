import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { definePlugin, memoryStore, type ModelRequest, type Tool } from '@bosun/core'
import subagents from './index.js'
import { childIds, ofType, parent, read, textOf, toolResults, until } from '../test/harness.js'

describe('profiles', () => {
  it('a profile gives the child its system prompt, its own model and the named tools, plus the subagent tools', async () => {
    const seen: { system: string; tools: string[] }[] = []
    const childModel = scripted({ responses: [(request) => { seen.push({ system: request.system, tools: request.tools.map((t) => t.name) }); return { text: 'from the researcher model' } }] })
    const tool = (name: string): Tool => ({ name, description: name, parameters: { type: 'object' }, execute: () => name })
    const root = await parent({
      tools: [tool('search'), tool('write')],
      options: { agents: { researcher: { system: 'You research.', model: { adapter: childModel }, tools: ['search'] } } },
      script: { ask: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'look it up', agent: 'researcher' } }] }, { text: 'ok' }] },
    })
    root.followup('ask')
    await root.whenIdle()
    expect(textOf(toolResults(root.session.events)[0]!.content)).toBe('from the researcher model')
    expect(seen).toEqual([{ system: 'You research.', tools: ['search', 'spawn_agent', 'send_to_agent', 'interrupt_agent', 'list_agents', 'report'] }])
    expect(ofType(root.session.events, 'subagent/spawned')[0]!.data).toMatchObject({ agent: 'researcher' })
    await root.close()
  })

  it('a top-level agent gets the four parent tools but not report; without a profile a child gets all the parent tools', async () => {
    const seen = new Map<string, string[]>()
    const tool: Tool = { name: 'search', description: 'search', parameters: { type: 'object' }, execute: () => 'found' }
    const root = await parent({
      tools: [tool],
      script: {
        top: [(request) => { seen.set('top', request.tools.map((t) => t.name)); return { toolCalls: [{ name: 'spawn_agent', args: { task: 'sub' } }] } }, { text: 'ok' }],
        sub: [(request) => { seen.set('sub', request.tools.map((t) => t.name)); return { text: 'fine' } }],
      },
    })
    root.followup('top')
    await root.whenIdle()
    expect(seen.get('top')).toEqual(['search', 'spawn_agent', 'send_to_agent', 'interrupt_agent', 'list_agents'])
    expect(seen.get('sub')).toEqual(['search', 'spawn_agent', 'send_to_agent', 'interrupt_agent', 'list_agents', 'report'])
    await root.close()
  })

  it('an unknown profile is an error result naming the profiles there are', async () => {
    const root = await parent({
      options: { agents: { researcher: {} } },
      script: { ask: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 't', agent: 'writer' } }] }, { text: 'ok' }] },
    })
    root.followup('ask')
    await root.whenIdle()
    const [result] = toolResults(root.session.events)
    expect(result!.isError).toBe(true)
    // the schema's enum refuses it before execute; either way the model sees the profiles
    expect(textOf(result!.content)).toMatch(/researcher/)
    await root.close()
  })

  it("a profile's tools allowlist covers tools plugins add too: a plugin's tool reaches only the children whose profile names it", async () => {
    const seen = new Map<string, string[]>()
    const tool = (name: string): Tool => ({ name, description: name, parameters: { type: 'object' }, execute: () => name })
    const webSearch = definePlugin({ name: 'web-search', setup: ({ addTool }) => addTool(tool('web')) })
    const options = { agents: { reader: { tools: ['read'] }, surfer: { tools: ['web'] } } }
    const spawn = (task: string, agent?: string) => ({ name: 'spawn_agent', args: { task, ...(agent ? { agent } : {}) } })
    const record = (key: string) => (request: ModelRequest) => (seen.set(key, request.tools.map((t) => t.name)), { text: key })
    const root = await parent({
      tools: [tool('read')],
      plugins: [[subagents, options], webSearch],
      script: {
        top: [{ toolCalls: [spawn('as reader', 'reader'), spawn('as surfer', 'surfer'), spawn('as me')] }, { text: 'ok' }],
        'as reader': [record('reader')],
        'as surfer': [record('surfer')],
        'as me': [record('me')],
      },
    })
    root.followup('top')
    await root.whenIdle()
    const subagentTools = ['spawn_agent', 'send_to_agent', 'interrupt_agent', 'list_agents', 'report']
    expect(seen.get('reader')).toEqual(['read', ...subagentTools])
    expect(seen.get('surfer')).toEqual([...subagentTools, 'web'])
    expect(seen.get('me')).toEqual(['read', ...subagentTools, 'web'])
    await root.close()
  })
})
