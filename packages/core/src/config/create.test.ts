import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { types } from 'node:util'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineAdapter } from '../adapter.js'
import { BosunError } from '../errors.js'
import { Stage } from '../hooks.js'
import type { Agent } from '../loop/agent.js'
import { definePlugin } from '../plugin.js'
import { messageText, type UserMessage } from '../session/messages.js'
import { sealIdleSessions } from '../session/sealer.js'
import { memoryStore } from '../store/memory.js'
import { buildFixturePackages, fixture, normalize } from '../testing/config-fixtures.js'
import { createAgentFromConfig } from './create.js'
import { loadConfig } from './load.js'

beforeAll(buildFixturePackages, 120_000)

/** Runs one follow-up; returns what the model saw and said (user messages, tool results, answers). */
async function converse(agent: Agent, input = 'hi'): Promise<{ system: string[]; lines: string[] }> {
  const system: string[] = []
  agent.hooks.prepareCall.tap('probe', (request) => {
    system.push(typeof request.system === 'string' ? request.system : '')
    return request
  })
  agent.followup(input)
  await agent.whenIdle()
  const lines = agent.session.events.flatMap((event) => {
    const data = event.data as Record<string, any>
    if (event.type === 'user/message') return [`user: ${messageText(data as UserMessage)}`]
    if (event.type === 'tool/result') return [`tool: ${data['content'].map((block: { text: string }) => block.text).join('')}`]
    if (event.type === 'assistant/message') {
      return [`assistant: ${data['message'].content.map((block: any) => (block.type === 'tool-call' ? `<${block.name} ${block.arguments}>` : block.text)).join('')}`]
    }
    return []
  })
  return { system, lines }
}

describe('createAgentFromConfig', () => {
  it('builds the agent a TS config describes: scripted model with options, local plugin with options, local tool, system prompt', async () => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/ts') }))
    expect(await converse(agent)).toEqual({
      system: ['You are a careful assistant.', 'You are a careful assistant.'],
      lines: ['user: [ts] hi', 'assistant: <clock {"zone":"CET"}>', 'tool: 12:00 CET', 'assistant: it is noon'],
    })
    await agent.close()
  })

  it.each([
    ['mts', 'hello from mts'],
    ['cts', 'hello from cts'],
    ['js', 'hello from js'],
    ['mjs', 'hello from mjs'],
    ['yml', 'hello from yml'],
    ['rc', 'hello from .bosunrc'],
    ['rc-json', 'hello from .bosunrc.json'],
    ['rc-yaml', 'hello from .bosunrc.yaml'],
    ['package-json', 'hello from package.json'],
  ])('builds an agent from the %s config that answers a follow-up', async (name, answer) => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: fixture(`good/${name}`) }))
    expect((await converse(agent)).lines).toEqual(['user: hi', `assistant: ${answer}`])
    await agent.close()
  })

  it('a JSON config names a local TS plugin with options', async () => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/json') }))
    expect(await converse(agent)).toEqual({ system: ['json'], lines: ['user: [json] hi', 'assistant: hello from json'] })
    await agent.close()
  })

  it('a YAML config names a local TS tool', async () => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/yaml') }))
    expect(agent.session.events).toHaveLength(0)
    agent.followup('hi')
    await agent.whenIdle()
    expect(agent.session.events.find((event) => event.type === 'request/header')?.data).toMatchObject({ adapter: 'scripted', tools: ['clock'] })
    await agent.close()
  })

  it('plugin and tool objects from a TS config are used as given, options and all', async () => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/inline') }))
    expect((await converse(agent)).lines).toEqual(['user: hi', 'assistant: <repeat {"text":"quiet"}>', 'tool: QUIET!!', 'assistant: done'])
    await agent.close()
  })

  it('with no config file, runs on the scripted model (it echoes) and a memory store', async () => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/stop-at-root/project') }))
    expect(await converse(agent)).toEqual({ system: [''], lines: ['user: hi', 'assistant: echo: hi'] })
    await agent.close()
  })

  it('logPages from the config reaches the agent and its plugins: false leaves an idle log unsealed, the default seals it', async () => {
    const seen: unknown[] = []
    const probe = definePlugin({ name: 'log-pages-probe', setup: (ctx) => void seen.push(ctx.config.logPages) })
    const off = await createAgentFromConfig({ logPages: false, plugins: [probe] })
    const on = await createAgentFromConfig({ plugins: [probe] })
    for (const agent of [off, on]) await converse(agent)
    await sealIdleSessions()
    expect(seen).toEqual([false, undefined])
    expect(types.isProxy(off.session.events)).toBe(false)
    expect(types.isProxy(on.session.events)).toBe(true) // sealed: a read-only view of its pages
    expect(on.session.events.map((event) => event.type)).toEqual(off.session.events.map((event) => event.type))
    await off.close()
    await on.close()
  })

  it('takes a config object from code, resolving names and paths from cwd', async () => {
    const agent = await createAgentFromConfig(
      { system: 'from code', plugins: [['./my-plugin.ts', { tag: 'code' }]], tools: ['./tools/clock.ts'] },
      { cwd: fixture('good/ts') },
    )
    expect(await converse(agent)).toEqual({ system: ['from code'], lines: ['user: [code] hi', 'assistant: echo: [code] hi'] })
    await agent.close()
  })

  it('uses the store given in the options instead of the config\'s, and resumes a stored session by id', async () => {
    const store = memoryStore()
    const first = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/mjs') }), { store, sessionId: 'kept' })
    await converse(first)
    await first.close()
    const second = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/mjs') }), { store, sessionId: 'kept' })
    expect(second.turn).toBe(1)
    expect(await store.list()).toMatchObject([{ id: 'kept' }])
    await second.close()
  })
})

describe('createAgentFromConfig — plugins and failures', () => {
  it('sets plugins up in config order; within a hook, stages decide', async () => {
    const order: string[] = []
    const tapper = (name: string, stage?: number) =>
      definePlugin({
        name,
        setup({ hooks }) {
          order.push(`setup ${name}`)
          hooks.preStep.tapPromise({ name, ...(stage === undefined ? {} : { stage }) }, async (decision) => {
            order.push(`pre-step ${name}`)
            return decision
          })
        },
      })
    const agent = await createAgentFromConfig({ plugins: [tapper('first'), tapper('second'), tapper('early', Stage.early)] })
    await converse(agent)
    expect(order).toEqual(['setup first', 'setup second', 'setup early', 'pre-step early', 'pre-step first', 'pre-step second'])
    await agent.close()
  })

  it('an adapter whose create throws is a CONFIG_INVALID error naming it, with the cause', async () => {
    const failing = defineAdapter({
      name: 'failing',
      create: () => {
        throw new Error('no route to the model server')
      },
    })
    const error = await createAgentFromConfig({ model: { adapter: failing } }, { cwd: fixture('good/ts') }).catch((caught: unknown) => caught)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    expect(normalize((error as Error).message)).toMatchInlineSnapshot(`
      "Invalid config (no config file; names resolve from <fixtures>/good/ts):
        - $.model (adapter "failing"): creating the adapter failed: no route to the model server"
    `)
    expect((error as Error).cause).toMatchObject({ message: 'no route to the model server' })
  })

  it('an adapter whose create throws a BosunError: its message as written, without "BosunError: " before it', async () => {
    const keyless = defineAdapter({
      name: 'keyless',
      create: () => {
        throw new BosunError('CONFIG_INVALID', 'keyless(): set MY_KEY (export MY_KEY=…) or name another variable with apiKeyEnv.')
      },
    })
    const error = await createAgentFromConfig({ model: { adapter: keyless } }, { cwd: fixture('good/ts') }).catch((caught: unknown) => caught)
    expect((error as BosunError).details).toMatchObject({
      problems: [{ path: '$.model', message: 'creating the adapter failed: keyless(): set MY_KEY (export MY_KEY=…) or name another variable with apiKeyEnv.' }],
    })
  })
})

describe('createAgentFromConfig — the JSONL store', () => {
  let dir: string | undefined
  afterEach(async () => {
    delete process.env['BOSUN_FIXTURE_SESSIONS']
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('keeps sessions in the folder the config names; a second agent resumes the session', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bosun-config-jsonl-'))
    process.env['BOSUN_FIXTURE_SESSIONS'] = dir
    const first = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/store-jsonl') }), { sessionId: 'from-config' })
    expect((await converse(first, 'remember me')).lines).toEqual(['user: remember me', 'assistant: echo: remember me'])
    await first.close()
    // The log, and the list summary the JSONL store writes beside it when its writer closes.
    expect((await readdir(dir)).sort()).toEqual(['from-config.jsonl', 'from-config.summary.json'])

    const second = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/store-jsonl') }), { sessionId: 'from-config' })
    expect(second.turn).toBe(1)
    expect((await converse(second, 'again')).lines).toEqual([
      'user: remember me',
      'assistant: echo: remember me',
      'user: again',
      'assistant: echo: again',
    ])
    await second.close()
  })
})
