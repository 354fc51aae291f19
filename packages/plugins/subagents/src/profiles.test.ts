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

  it("a profile's tools entry that names no tool fails the agent's creation, saying where, what there is and what to do", async () => {
    const tool = (name: string): Tool => ({ name, description: name, parameters: { type: 'object' }, execute: () => name })
    const attempt = parent({ tools: [tool('read-file'), tool('search')], options: { agents: { researcher: { tools: ['search', 'read_file'] }, writer: { tools: ['./tools/search.ts'] } } } })
    await expect(attempt).rejects.toMatchObject({
      code: 'PLUGIN_OPTIONS_INVALID',
      details: { paths: '$.agents.researcher.tools[1],$.agents.writer.tools[0]' },
      message: [
        'Invalid options for plugin "subagents" (plugins[0]):',
        '  - $.agents.researcher.tools[1]: names no tool — did you mean "read-file"? (found "read_file")',
        '  - $.agents.writer.tools[0]: names no tool — did you mean "search"? (found "./tools/search.ts")',
        'The agent\'s tools: read-file, search (its own and those its plugins add); and the subagent tools (spawn_agent, send_to_agent, interrupt_agent, list_agents, report), which every child gets anyway. ' +
          'A profile\'s "tools" lists, by name, the tools its children get: correct the name (a tool\'s name, not its file), or leave "tools" out to give them all.',
      ].join('\n'),
    })
  })

  it('names checked at creation are the top-level agent\'s: a child without a tool another profile names still opens, and a profile may name a subagent tool', async () => {
    const tool = (name: string): Tool => ({ name, description: name, parameters: { type: 'object' }, execute: () => name })
    const root = await parent({
      tools: [tool('read'), tool('write')],
      options: { agents: { reader: { tools: ['read', 'list_agents'] }, writer: { tools: ['write'] } } },
      script: { top: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'as reader', agent: 'reader' } }] }, { text: 'ok' }] },
    })
    root.followup('top')
    await root.whenIdle()
    const [result] = toolResults(root.session.events)
    expect([result!.isError, textOf(result!.content)]).toEqual([undefined, 'done: as reader'])
    await root.close()
  })

  it('beside other plugins, before or after it, a name no plugin adds is refused at creation; one a later plugin adds is a tool', async () => {
    const tool = (name: string): Tool => ({ name, description: name, parameters: { type: 'object' }, execute: () => name })
    const webSearch = definePlugin({ name: 'web-search', setup: ({ addTool }) => addTool(tool('web')) })
    const fetcher = definePlugin({ name: 'fetcher', setup: ({ addTool }) => addTool(tool('fetch')) })
    const store = memoryStore()
    const attempt = parent({
      store, tools: [tool('read')],
      plugins: [webSearch, [subagents, { agents: { surfer: { tools: ['web', 'fetch', 'Web_Search'] } } }], fetcher],
    })
    await expect(attempt).rejects.toMatchObject({
      code: 'PLUGIN_OPTIONS_INVALID',
      message: expect.stringContaining('Invalid options for plugin "subagents" (plugins[1]):\n  - $.agents.surfer.tools[2]: names no tool (found "Web_Search")\nThe agent\'s tools: read, web, fetch (its own and those its plugins add); and the subagent tools'),
    })
    // Refused before the session was written: nothing is left in the store.
    expect(await store.list()).toEqual([])
    // Named right, the tool the plugin after subagents adds reaches the child.
    const seen: string[][] = []
    const root = await parent({
      tools: [tool('read')],
      plugins: [webSearch, [subagents, { agents: { surfer: { tools: ['fetch'] } } }], fetcher],
      script: {
        top: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'as surfer', agent: 'surfer' } }] }, { text: 'ok' }],
        'as surfer': [(request: ModelRequest) => (seen.push(request.tools.map((t) => t.name)), { text: 'surfed' })],
      },
    })
    root.followup('top')
    await root.whenIdle()
    expect(textOf(toolResults(root.session.events)[0]!.content)).toBe('surfed')
    expect(seen).toEqual([['spawn_agent', 'send_to_agent', 'interrupt_agent', 'list_agents', 'report', 'fetch']])
    await root.close()
  })

  it("a tool a plugin adds only inside children is not one of the agent's tools: a profile cannot name it, and a child without a profile's tools gets it", async () => {
    const tool = (name: string): Tool => ({ name, description: name, parameters: { type: 'object' }, execute: () => name })
    // Adds `shell` in child agents only (as a plugin giving children a sandbox the lead lacks would).
    const sandbox = definePlugin({ name: 'sandbox', setup: ({ addTool, session }) => void (session.header.delegation && addTool(tool('shell'))) })
    const store = memoryStore()
    await expect(parent({ store, tools: [tool('read')], plugins: [[subagents, { agents: { runner: { tools: ['read', 'shell'] } } }], sandbox] })).rejects.toMatchObject({
      code: 'PLUGIN_OPTIONS_INVALID',
      message: expect.stringContaining('$.agents.runner.tools[1]: names no tool (found "shell")\nThe agent\'s tools: read (its own and those its plugins add)'),
    })
    expect(await store.list()).toEqual([])
    const seen: string[][] = []
    const root = await parent({
      tools: [tool('read')],
      plugins: [[subagents, { agents: { runner: { system: 'You run things.' } } }], sandbox],
      script: {
        top: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'run', agent: 'runner' } }] }, { text: 'ok' }],
        run: [(request: ModelRequest) => (seen.push(request.tools.map((t) => t.name)), { text: 'ran' })],
      },
    })
    root.followup('top')
    await root.whenIdle()
    expect(seen).toEqual([['read', 'spawn_agent', 'send_to_agent', 'interrupt_agent', 'list_agents', 'report', 'shell']])
    await root.close()
  })
})
