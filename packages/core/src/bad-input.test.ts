// Every public function given wrong types or out-of-range values fails with a coded error and
// leaves the log unchanged.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { BosunError } from './errors.js'
import { createAgent } from './create-agent.js'
import { definePlugin } from './plugin.js'
import { createUserMessage, toUserMessage } from './session/messages.js'
import { memoryStore } from './store/memory.js'
import { forkSession } from './store/fork.js'
import { defineAdapter } from './adapter.js'
import { defineStore } from './store/define-store.js'
import { harness } from './testing/harness.js'

/** Runs `act` and returns the error's code; fails the test if it does not throw a BosunError. */
async function codeOf(act: () => unknown): Promise<string> {
  try {
    await act()
  } catch (error) {
    if (!BosunError.is(error)) throw new Error(`expected a BosunError, got ${String(error)}`)
    return error.code
  }
  throw new Error('expected a throw')
}

describe('agent methods refuse bad input with a code and leave the log unchanged', async () => {
  const cases: [string, (agent: Awaited<ReturnType<typeof createAgent>>) => unknown, string][] = [
    ['followup(123)', (a) => a.followup(123 as never), 'INVALID_MESSAGE'],
    ['followup(null)', (a) => a.followup(null as never), 'INVALID_MESSAGE'],
    ['steer({})', (a) => a.steer({} as never), 'INVALID_MESSAGE'],
    ['inject([])', (a) => a.inject([] as never), 'INVALID_MESSAGE'],
    ['followup(message with empty content)', (a) => a.followup({ id: 'x', role: 'user', content: [], source: { kind: 'user' } } as never), 'INVALID_MESSAGE'],
    ['followup(message with a function)', (a) => a.followup({ id: 'x', role: 'user', content: [{ type: 'text', text: 'a', f: () => 1 }], source: { kind: 'user' } } as never), 'NOT_JSON'],
    ['abort(5)', (a) => a.abort(5 as never), 'INVALID_ARGUMENT'],
    ['cancel("all")', (a) => a.cancel('all' as never), 'INVALID_ARGUMENT'],
    ['cancel(null)', (a) => a.cancel(null as never), 'INVALID_ARGUMENT'],
    ['runMaintenance("x")', (a) => a.runMaintenance('x' as never), 'INVALID_ARGUMENT'],
    ['inbox.splice("later", …)', (a) => a.inbox.splice('later' as never, 0, 0, []), 'INVALID_ARGUMENT'],
    ['inbox.splice(start "0")', (a) => a.inbox.splice('next-turn', '0' as never, 0, []), 'INVALID_ARGUMENT'],
    ['inbox.splice(inserted not an array)', (a) => a.inbox.splice('next-turn', 0, 0, 'x' as never), 'INVALID_ARGUMENT'],
    ['inbox.claim("now", 1)', (a) => a.inbox.claim('now' as never, 1), 'INVALID_ARGUMENT'],
    ['inbox.remove(42)', (a) => a.inbox.remove(42 as never), 'INVALID_ARGUMENT'],
    ['inbox.remove("missing")', (a) => a.inbox.remove('missing'), 'MESSAGE_NOT_PENDING'],
    ['inbox.replace("missing", "x")', (a) => a.inbox.replace('missing', 'x'), 'MESSAGE_NOT_PENDING'],
    ['session.append("Bad Type", {})', (a) => a.session.append('Bad Type', {}), 'INVALID_EVENT_TYPE'],
    ['session.append("x/y", NaN)', (a) => a.session.append('x/y', { n: Number.NaN }), 'NOT_JSON'],
    ['session.append("x/y", "not an object")', (a) => a.session.append('x/y', 'text'), 'NOT_JSON'],
  ]
  for (const [name, act, code] of cases) {
    it(`${name} → ${code}`, async () => {
      const { agent } = await harness()
      agent.followup('already queued')
      const before = agent.session.length
      let after = -1
      // The length is read synchronously after the call, before the driver (a microtask) runs.
      expect(await codeOf(() => {
        try {
          return act(agent)
        } finally {
          after = agent.session.length
        }
      })).toBe(code)
      expect(after).toBe(before)
      await agent.whenIdle()
    })
  }

  it('a closed agent refuses input with AGENT_CLOSED', async () => {
    const { agent } = await harness()
    await agent.close()
    const before = agent.session.length
    expect(await codeOf(() => agent.followup('late'))).toBe('AGENT_CLOSED')
    expect(await codeOf(() => agent.runMaintenance(() => 1))).toBe('AGENT_CLOSED')
    expect(agent.session.length).toBe(before)
  })
})

describe('factories refuse bad input with a code and create nothing', () => {
  const model = scripted()
  const cases: [string, () => unknown, string][] = [
    ['createAgent(undefined)', () => createAgent(undefined as never), 'INVALID_ARGUMENT'],
    ['createAgent({model: {}})', () => createAgent({ model: {} as never }), 'INVALID_ARGUMENT'],
    ['createAgent({store: {}})', () => createAgent({ model, store: {} as never }), 'INVALID_ARGUMENT'],
    ['createAgent({plugins: {}})', () => createAgent({ model, plugins: {} as never }), 'INVALID_ARGUMENT'],
    ['createAgent({plugins: ["x"]})', () => createAgent({ model, plugins: ['x' as never] }), 'INVALID_PLUGIN'],
    ['createAgent({system: 3})', () => createAgent({ model, system: 3 as never }), 'INVALID_ARGUMENT'],
    ['createAgent({maxParallelTools: 0})', () => createAgent({ model, maxParallelTools: 0 }), 'INVALID_ARGUMENT'],
    ['createAgent({maxParallelTools: 1.5})', () => createAgent({ model, maxParallelTools: 1.5 }), 'INVALID_ARGUMENT'],
    ['createAgent({now: 1})', () => createAgent({ model, now: 1 as never }), 'INVALID_ARGUMENT'],
    ['createAgent({sessionId: "../etc"})', () => createAgent({ model, sessionId: '../etc' }), 'INVALID_SESSION_ID'],
    ['createAgent({sessionId: "CON"}) (a Windows device name)', () => createAgent({ model, sessionId: 'CON' }), 'INVALID_SESSION_ID'],
    ['createAgent({sessionId: "nul.txt"})', () => createAgent({ model, sessionId: 'nul.txt' }), 'INVALID_SESSION_ID'],
    ['createAgent({sessionId: "com1"})', () => createAgent({ model, sessionId: 'com1' }), 'INVALID_SESSION_ID'],
    ['createAgent({tools: {}})', () => createAgent({ model, tools: {} as never }), 'INVALID_TOOL'],
    ['createAgent({tools: [{name: "bad name"}]})', () => createAgent({ model, tools: [{ name: 'bad name', description: '', parameters: {}, execute: () => '' }] }), 'INVALID_TOOL'],
    ['createAgent({tools: [two named "a"]})', () => {
      const a = { name: 'a', description: '', parameters: { type: 'object' }, execute: () => '' }
      return createAgent({ model, tools: [a, a] })
    }, 'INVALID_TOOL'],
    ['createAgent({tools: [schema not JSON Schema]})', () => createAgent({ model, tools: [{ name: 'a', description: '', parameters: { type: 'nonsense' }, execute: () => '' }] }), 'INVALID_TOOL'],
    ['definePlugin(null)', () => definePlugin(null as never), 'INVALID_PLUGIN'],
    ['definePlugin({name: "Bad"})', () => definePlugin({ name: 'Bad', setup() {} }), 'INVALID_PLUGIN'],
    ['definePlugin({no setup})', () => definePlugin({ name: 'a' } as never), 'INVALID_PLUGIN'],
    ['definePlugin({schema: 1})', () => definePlugin({ name: 'a', schema: 1 as never, setup() {} }), 'INVALID_PLUGIN'],
    ['definePlugin({schema invalid})', () => definePlugin({ name: 'a', schema: { type: 12 }, setup() {} }), 'INVALID_PLUGIN'],
    ['defineAdapter({})', () => defineAdapter({} as never), 'INVALID_PLUGIN'],
    ['defineStore({name: "s"})', () => defineStore({ name: 's' } as never), 'INVALID_PLUGIN'],
    ['createUserMessage(42)', () => createUserMessage(42 as never), 'INVALID_MESSAGE'],
    ['toUserMessage({role: "assistant"})', () => toUserMessage({ id: 'a', role: 'assistant', content: [{ type: 'text', text: '' }], source: { kind: 'user' } }), 'INVALID_MESSAGE'],
    ['forkSession(store, "../x")', () => forkSession(memoryStore(), '../x'), 'INVALID_SESSION_ID'],
    ['forkSession(store, "missing")', () => forkSession(memoryStore(), 'missing'), 'STORE'],
    ['forkSession(store, "a", {afterTurn: -1})', () => forkSession(memoryStore(), 'a', { afterTurn: -1 }), 'INVALID_ARGUMENT'],
  ]
  for (const [name, act, code] of cases) {
    it(`${name} → ${code}`, async () => {
      expect(await codeOf(act)).toBe(code)
    })
  }

  it('plugin options that fail the schema are refused before any session is created', async () => {
    const store = memoryStore()
    const limited = definePlugin({
      name: 'limited',
      schema: { type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false },
      setup() {},
    })
    const error = await createAgent({ model, store, plugins: [[limited, { max: 0, extra: true }]] }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
    expect((error as Error).message).toMatchInlineSnapshot(`
      "Invalid options for plugin "limited" (plugins[0]):
        - $.extra: unknown key "extra"; the known keys are max.
        - $.max: must be >= 1 (found 0)"
    `)
    expect(await store.list()).toEqual([])
  })
})
