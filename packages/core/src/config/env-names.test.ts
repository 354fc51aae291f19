// An option key ending in `Env` names an environment variable. A key pasted there instead is
// refused without being shown — from code as from a config — before anything reads the
// variable, whose "is not set" message names it.
import { scripted } from '@bosun/adapter-scripted'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../create-agent.js'
import { BosunError } from '../errors.js'
import { definePlugin } from '../plugin.js'
import { assertOptions, type JsonSchema } from '../schema.js'
import { ENV_NAME_REFUSED, envNameProblems, envNameRefusal, envOptionsIn, envVariablesNamed, isEnvName } from './env-names.js'
import { validateConfig } from './validate.js'

/** Pasted keys; all but the first pass for a variable's name by their characters alone. */
const PASTED = [
  'sk-ant-api03-PASTEDabcdefghijklmnop',
  'ghp_PASTEDabcdefghijklmnopqrstuvwxyz0123',
  'AKIAPASTED0EXAMPLE00',
  'gsk_PASTEDabcdefghijklmnop',
  'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3', // 40 hex: a classic GitHub token, a SHA-1 hmac
  'PASTEDq7Zk2Lm9Xw4Rt8Yv3Bn6', // random base62
]

/** A plugin whose schema lets any string through, and which reads the variable in setup, quoting its name when unset. */
const reader = definePlugin<{ tokenEnv: string }>({
  name: 'reader',
  schema: { type: 'object', properties: { tokenEnv: { type: 'string' } }, required: ['tokenEnv'], additionalProperties: false },
  setup(_agent, { tokenEnv }) {
    if (!process.env[tokenEnv]) throw new Error(`the environment variable ${tokenEnv} is not set`)
  },
})

const schema: JsonSchema = {
  type: 'object',
  properties: {
    urlEnv: { type: 'string', anyOf: [{ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }], 'x-expected': 'the name of an environment variable' },
    servers: { type: 'array', items: { type: 'object', properties: { tokenEnv: { type: 'string' }, name: { type: 'string' } } } },
    env: { type: 'string' },
    region: { type: 'string' },
  },
}

function thrown(run: () => unknown): BosunError {
  try {
    run()
  } catch (error) {
    return error as BosunError
  }
  throw new Error('did not throw')
}

describe('…Env options name a variable, never hold the key', () => {
  it('a variable name passes; a pasted key does not, even one made of letters, digits and "_"', () => {
    for (const name of ['OPENAI_API_KEY', 'DEEPSEEK_API_KEY', 'BOSUN_PG_URL', 'my_token', '_X', 'GITHUB_TOKEN_2024']) expect(isEnvName(name), name).toBe(true)
    for (const value of [...PASTED, 'not a name', '1ABC', '', 'A-B']) expect(isEnvName(value), value).toBe(false)
  })

  it('from code: refused by every options check, whatever the schema says, one line each, the value never shown', () => {
    for (const pasted of PASTED) {
      const options = { urlEnv: pasted, servers: [{ name: 'a', tokenEnv: 'GOOD_NAME' }, { name: 'b', tokenEnv: pasted }], env: 'not a key name', region: 'eu-west-1' }
      const error = thrown(() => assertOptions(schema, options, 'proxy()'))
      expect(BosunError.is(error, 'INVALID_ARGUMENT')).toBe(true)
      // The schema's own line for urlEnv (when the pattern refuses it) or the …Env line: never both.
      const lines = error.message.split('\n').slice(1)
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^ {2}- \$\.urlEnv: must (be the name of an environment variable|name an environment variable)/)
      expect(lines[1]).toBe(`  - $.servers[1].tokenEnv: ${ENV_NAME_REFUSED}`)
      expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('PASTED')
      expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(pasted)
    }
  })

  it('from code: a plugin that reads its …Env option never gets a pasted key to quote', async () => {
    for (const pasted of PASTED) {
      const error = await createAgent({ model: scripted({ responses: [] }), plugins: [[reader, { tokenEnv: pasted }]] }).catch((e: unknown) => e as BosunError)
      expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID'), String(error)).toBe(true)
      expect((error as Error).message.split('\n').slice(1)).toEqual([`  - $.tokenEnv: ${ENV_NAME_REFUSED}`])
      expect((error as Error).message).not.toContain(pasted)
    }
  })

  it('from a config: the same words, the value never shown', async () => {
    for (const pasted of PASTED) {
      const config = { model: { adapter: 'scripted' }, plugins: [[reader, { tokenEnv: pasted }]] }
      const error = await validateConfig({ config: config as never, file: '/project/bosun.config.ts', dir: '/project' }, { env: {} }).catch((e: unknown) => e as BosunError)
      expect((error as Error).message.split('\n').slice(1)).toEqual([`  - $.plugins[0][1].tokenEnv (plugin "reader"): ${ENV_NAME_REFUSED}`])
      expect(JSON.stringify({ message: (error as Error).message, details: (error as BosunError).details })).not.toContain(pasted)
    }
  })

  it('a name written as a shell refers to it ($MY_KEY, ${MY_KEY}) is told to drop the "$", from code and from a config', async () => {
    const told = 'must name an environment variable without "$": write "MY_KEY", not '
    expect(envNameRefusal('$MY_KEY')).toBe(`${told}"$MY_KEY" (Bosun reads the variable itself; nothing expands "$" in a config)`)
    expect(envNameRefusal('${MY_KEY}')).toBe(`${told}"\${MY_KEY}" (Bosun reads the variable itself; nothing expands "$" in a config)`)
    // A key behind a "$" is still a key: the general words, the value never shown.
    for (const pasted of PASTED) {
      expect(envNameRefusal(`$${pasted}`)).toBe(ENV_NAME_REFUSED)
      expect(envNameRefusal(`\${${pasted}}`)).toBe(ENV_NAME_REFUSED)
    }
    for (const other of ['$', '${}', '$$MY_KEY', '${MY_KEY', '$MY KEY']) expect(envNameRefusal(other), other).toBe(ENV_NAME_REFUSED)
    const fromCode = await createAgent({ model: scripted({ responses: [] }), plugins: [[reader, { tokenEnv: '$MY_KEY' }]] }).catch((e: unknown) => e as BosunError)
    expect((fromCode as Error).message.split('\n').slice(1)).toEqual([`  - $.tokenEnv: ${envNameRefusal('$MY_KEY')}`])
    const config = { model: { adapter: 'scripted' }, plugins: [[reader, { tokenEnv: '${MY_KEY}' }]] }
    const fromConfig = await validateConfig({ config: config as never, file: '/project/bosun.config.ts', dir: '/project' }, { env: {} }).catch((e: unknown) => e as BosunError)
    expect((fromConfig as Error).message.split('\n').slice(1)).toEqual([`  - $.plugins[0][1].tokenEnv (plugin "reader"): ${envNameRefusal('${MY_KEY}')}`])
  })

  it('finds them at any depth of plain objects and arrays, not inside objects a constructor made', () => {
    class Client {
      tokenEnv = 'ghp_PASTEDabcdefghijklmnopqrstuvwxyz0123'
    }
    const options = { a: [{ b: { keyEnv: 'sk-PASTEDabcdefghijk' } }], client: new Client(), env: 'x y', Env: 'x y', okEnv: 'OK' }
    expect(envNameProblems(options)).toEqual([{ keys: ['a', 0, 'b', 'keyEnv'], message: ENV_NAME_REFUSED }])
  })
})

describe('the …Env options of a config', () => {
  it('each key and the variable it names, once, in document order, at any depth; values that are no name left out', () => {
    const config = {
      model: { adapter: 'openai', options: { apiKeyEnv: 'GATEWAY_KEY', baseUrlEnv: 'GATEWAY_URL' } },
      plugins: [['gate', { tokenEnv: 'GATEWAY_KEY', regionEnv: 'eu-west-1' }], ['other', { servers: [{ apiKeyEnv: 'GATEWAY_KEY' }] }]],
    }
    expect(envOptionsIn(config)).toEqual([
      { key: 'apiKeyEnv', name: 'GATEWAY_KEY' },
      { key: 'baseUrlEnv', name: 'GATEWAY_URL' },
      { key: 'tokenEnv', name: 'GATEWAY_KEY' },
    ])
    expect(envVariablesNamed(config)).toEqual(['GATEWAY_KEY', 'GATEWAY_URL'])
  })
})
