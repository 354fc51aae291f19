// assertOptions: options given from code are checked against the schema a config file's are
// checked with, through the same formatter; createAdapter and createStore check options once.
import { describe, expect, it } from 'vitest'
import { createAdapter, defineAdapter } from './adapter.js'
import { validateConfig } from './config/validate.js'
import { BosunError } from './errors.js'
import type { ModelAdapter } from './model.js'
import { ajv, assertOptions, optionsError, type JsonSchema } from './schema.js'
import { createStore, defineStore } from './store/define-store.js'
import { memoryStore } from './store/memory.js'
import type { Store } from './store/types.js'

// Counts every validation against a schema that carries it: the check itself, not a stand-in.
let checks = 0
ajv().addKeyword({ keyword: 'x-test-counted', schemaType: 'boolean', validate: () => ++checks > 0 })

const schema: JsonSchema = {
  type: 'object',
  'x-test-counted': true,
  properties: { level: { type: 'integer', minimum: 1, maximum: 9 }, url: { type: 'string' } },
  additionalProperties: false,
}

const adapter: ModelAdapter = { name: 'counted', stream: () => (async function* () {})() }
const urlProblems = (options: { url?: string }) => (options.url === undefined || URL.canParse(options.url) ? [] : [{ keys: ['url'], message: 'must be a URL that parses', found: options.url }])

/** An adapter package's function: it checks its options itself, so that a code caller's are checked too. */
function counted(options: unknown): ModelAdapter {
  assertOptions(schema, options, 'counted()', { check: urlProblems })
  return adapter
}

const definition = defineAdapter({ name: 'counted', schema, create: (options) => counted(options) })

async function rejection(promise: Promise<unknown>): Promise<BosunError> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(BosunError)
  return error as BosunError
}

describe('assertOptions', () => {
  it('throws INVALID_ARGUMENT with every problem in the words of a config error, then runs the check the schema cannot do', () => {
    expect(() => assertOptions(schema, { level: 0, colour: 1 }, 'counted()')).toThrow(
      ['Invalid options for counted():', '  - $.colour: unknown key "colour"; the known keys are level, url.', '  - $.level: must be an integer from 1 to 9 (found 0)'].join('\n'),
    )
    let error: unknown
    try {
      counted({ url: 'http://exa mple' })
    } catch (e) {
      error = e
    }
    expect(BosunError.is(error, 'INVALID_ARGUMENT')).toBe(true)
    expect((error as Error).message).toBe('Invalid options for counted():\n  - $.url: must be a URL that parses (found "http://exa mple")')
    // The check runs only on options the schema passed (it may rely on their types).
    expect(() => assertOptions(schema, { url: 5 }, 'counted()', { check: urlProblems })).toThrow('$.url: must be a string (found 5)')
  })

  it('puts `at` in front of the paths, and takes another code', () => {
    expect(() => assertOptions(schema, { level: 10 }, 'x', { at: ['entries', 2], code: 'PLUGIN_OPTIONS_INVALID' })).toThrow(
      expect.objectContaining({ code: 'PLUGIN_OPTIONS_INVALID', message: 'Invalid options for x:\n  - $.entries[2].level: must be an integer from 1 to 9 (found 10)' }),
    )
  })
})

describe('createAdapter checks an adapter\'s options once', () => {
  it('once through createAdapter, once from code', async () => {
    checks = 0
    await createAdapter(definition, { level: 3 })
    expect(checks).toBe(1)
    checks = 0
    counted({ level: 3 })
    expect(checks).toBe(1)
    checks = 0
    await createAdapter(definition, undefined)
    expect(checks).toBe(1)
  })

  it('bad options: createAdapter\'s own message, checked once; what only the adapter checks still runs', async () => {
    checks = 0
    const error = await rejection(createAdapter(definition, { level: 12 }))
    expect([error.code, error.message]).toEqual(['PLUGIN_OPTIONS_INVALID', 'Invalid options for adapter "counted":\n  - $.level: must be an integer from 1 to 9 (found 12)'])
    expect(checks).toBe(1)
    const unparsable = await rejection(createAdapter(definition, { url: 'http://exa mple' }))
    expect([unparsable.code, unparsable.message]).toEqual(['INVALID_ARGUMENT', 'Invalid options for counted():\n  - $.url: must be a URL that parses (found "http://exa mple")'])
  })

  it('options the adapter checks later, or other options, are checked again: trust covers only that value, then', async () => {
    const later = defineAdapter({
      name: 'later',
      schema,
      create: async (options: unknown) => {
        await Promise.resolve()
        return counted(options)
      },
    })
    checks = 0
    await createAdapter(later, { level: 3 })
    expect(checks).toBe(2)
    const swapped = defineAdapter({ name: 'swapped', schema, create: (options: { level?: number }) => counted({ ...options, level: 0 }) })
    const error = await rejection(createAdapter(swapped, { level: 3 }))
    expect(error.message).toBe('Invalid options for counted():\n  - $.level: must be an integer from 1 to 9 (found 0)')
    // Used once: a second check of the same value in the same create is made.
    const twice = defineAdapter({ name: 'twice', schema, create: (options: unknown) => (counted(options), counted(options)) })
    checks = 0
    await createAdapter(twice, { level: 3 })
    expect(checks).toBe(2)
  })
})

describe('createStore checks a store\'s options once', () => {
  /** A store package's function: it checks its options itself, so that a code caller's are checked too. */
  function countedStore(options: unknown): Store {
    assertOptions(schema, options, 'countedStore()')
    return memoryStore()
  }
  const store = defineStore({ name: 'counted', schema, create: (options) => countedStore(options) })

  it('once through createStore (twice before), once from code', async () => {
    checks = 0
    await (await createStore(store, { level: 3 })).close()
    expect(checks).toBe(1)
    checks = 0
    await (await createStore(store, undefined)).close()
    expect(checks).toBe(1)
    checks = 0
    await countedStore({ level: 3 }).close()
    expect(checks).toBe(1)
  })

  it('bad options: createStore\'s own message and code, unchanged, checked once', async () => {
    checks = 0
    const error = await rejection(createStore(store, { level: 12 }))
    expect([error.code, error.message]).toEqual(['PLUGIN_OPTIONS_INVALID', 'Invalid options for store "counted":\n  - $.level: must be an integer from 1 to 9 (found 12)'])
    expect(checks).toBe(1)
  })

  it('a copy the definition makes (a path resolved against baseDir) is checked again: the trust covers that value only', async () => {
    const copying = defineStore({ name: 'copying', schema, create: (options: { url?: string }, { baseDir }) => countedStore({ ...options, url: `file://${baseDir}/${options.url ?? ''}` }) })
    checks = 0
    await (await createStore(copying, { url: 'x' }, { baseDir: '/project' })).close()
    expect(checks).toBe(2)
    const breaking = defineStore({ name: 'breaking', schema, create: (options: object) => countedStore({ ...options, level: 0 }) })
    const error = await rejection(createStore(breaking, { level: 3 }))
    expect([error.code, error.message]).toEqual(['INVALID_ARGUMENT', 'Invalid options for countedStore():\n  - $.level: must be an integer from 1 to 9 (found 0)'])
  })
})

describe('options errors: what is found', () => {
  const secrets: JsonSchema = {
    type: 'object',
    properties: {
      apiKey: { type: 'string' },
      tokenEnv: { type: 'string' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      auth: { type: 'object', properties: { password: { type: 'object', properties: { value: { type: 'string' } } } } },
      level: { type: 'integer' },
    },
  }

  it('a value under a secret-looking key, a …Env key or headers is never shown, whatever its type: its type only', () => {
    const options = { apiKey: 12345, tokenEnv: true, headers: { 'x-pin': 4321 }, auth: { password: { value: 98765 } }, level: [13579, 2468] }
    let error: unknown
    try {
      assertOptions(secrets, options, 'proxy()')
    } catch (e) {
      error = e
    }
    expect((error as Error).message.split('\n').slice(1)).toEqual([
      '  - $.apiKey: must be a string (found a number not shown: under this key it could be a credential)',
      '  - $.tokenEnv: must be a string (found a boolean not shown: under this key it could be a credential)',
      '  - $.headers["x-pin"]: must be a string (found a number not shown: under this key it could be a credential)',
      '  - $.auth.password.value: must be a string (found a number not shown: under this key it could be a credential)',
      '  - $.level: must be an integer (found [13579, 2468])',
    ])
    for (const digits of ['12345', '4321', '98765']) expect((error as Error).message).not.toContain(digits)
    expect(() => assertOptions(secrets, { apiKey: [12345] }, 'proxy()')).toThrow('$.apiKey: must be a string (found an array not shown: under this key it could be a credential)')
    expect(() => assertOptions(secrets, { apiKey: null }, 'proxy()')).toThrow('$.apiKey: must be a string (found null)')
  })

  it('headers given as a string, an array or a number (not an object of headers) is not shown either: it holds header values', () => {
    for (const [headers, type] of [['x-api-key: pin-4321', 'a string'], [['Authorization: Basic pin4321'], 'an array'], [4321, 'a number']] as const) {
      expect(() => assertOptions(secrets, { headers }, 'proxy()')).toThrow(`$.headers: must be an object (found ${type} not shown: under this key it could be a credential)`)
    }
  })

  it('a property whose schema says writeOnly (a connection URL that may hold a password) is never shown, whatever it holds', () => {
    const url: JsonSchema = { type: 'object', properties: { url: { type: 'string', writeOnly: true, anyOf: [{ pattern: '^postgres://' }], 'x-expected': 'a postgres:// URL' } } }
    // A connection string with its password, which no credential pattern knows: never quoted.
    expect(() => assertOptions(url, { url: 'host=db user=bob password=hunter2' }, 'x()')).toThrow(
      'Invalid options for x():\n  - $.url: must be a postgres:// URL (found a string not shown: under this key it could be a credential)',
    )
    expect(() => assertOptions(url, { url: 4321 }, 'x()')).toThrow('$.url: must be a postgres:// URL (found a number not shown: under this key it could be a credential)')
  })

  it('a check outside the schema gets the same treatment', () => {
    expect(optionsError('x', [{ keys: ['clientSecret'], message: 'must be long', found: 7 }]).message).toBe(
      'Invalid options for x:\n  - $.clientSecret: must be long (found a number not shown: under this key it could be a credential)',
    )
  })

  it('a range with both bounds is said in words; one bound stays a comparison', () => {
    const ranges: JsonSchema = {
      type: 'object',
      properties: { temperature: { type: 'number', minimum: 0, maximum: 2 }, max: { type: 'integer', minimum: 1 }, below: { type: 'number', maximum: 1 } },
    }
    const problem = (options: object) => {
      try {
        assertOptions(ranges, options, 'x')
      } catch (error) {
        return (error as Error).message.split('\n')[1]
      }
      return undefined
    }
    expect(problem({ temperature: 3 })).toBe('  - $.temperature: must be a number from 0 to 2 (found 3)')
    expect(problem({ temperature: -0.5 })).toBe('  - $.temperature: must be a number from 0 to 2 (found -0.5)')
    expect(problem({ max: 0 })).toBe('  - $.max: must be >= 1 (found 0)')
    expect(problem({ below: 2 })).toBe('  - $.below: must be <= 1 (found 2)')
  })

  it('Infinity and NaN are not numbers (ajv passes them by default): from code and from a config', async () => {
    const numbers: JsonSchema = { type: 'object', properties: { count: { type: 'integer', minimum: 0 }, ratio: { type: 'number' } } }
    expect(() => assertOptions(numbers, { count: Number.POSITIVE_INFINITY, ratio: Number.NaN }, 'x')).toThrow(
      'Invalid options for x:\n  - $.count: must be an integer (found Infinity)\n  - $.ratio: must be a number (found NaN)',
    )
    // A YAML config can say `.inf`.
    const error = await validateConfig({ config: { model: 'scripted', maxParallelTools: Number.POSITIVE_INFINITY } as never, file: '/p/bosun.config.yaml', dir: '/p' }, { env: {} }).catch((e: unknown) => e)
    expect((error as Error).message).toContain('$.maxParallelTools: must be an integer (found Infinity)')
  })

  it('a oneOf with an x-expected phrase is one problem, in its words', () => {
    const either: JsonSchema = {
      type: 'object',
      properties: { url: { type: 'string' }, urlEnv: { type: 'string' } },
      oneOf: [{ required: ['url'] }, { required: ['urlEnv'] }],
      'x-expected': 'an object with exactly one of "url" and "urlEnv"',
    }
    for (const options of [{}, { url: 'a', urlEnv: 'B' }]) {
      expect(() => assertOptions(either, options, 'x')).toThrow('Invalid options for x:\n  - $: must be an object with exactly one of "url" and "urlEnv" (found an object)')
    }
    // `type` and `oneOf` both fail with the root's phrase: one line, not two.
    expect(() => assertOptions(either, 'u', 'x')).toThrow(expect.objectContaining({ message: 'Invalid options for x:\n  - $: must be an object with exactly one of "url" and "urlEnv" (found "u")' }))
  })
})
