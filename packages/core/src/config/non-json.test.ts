// Options are JSON values, but for a function where the schema says only code gives one
// (x-bosun-function): a bigint, a symbol, NaN or Infinity is refused wherever it sits — also where
// the schema names no type (free-form data, a plugin without a schema), which ajv lets through —
// with its path, what was expected and what to give instead.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { BosunError } from '../errors.js'
import { definePlugin } from '../plugin.js'
import { assertOptions, UNDECLARED_OPTIONS, type JsonSchema } from '../schema.js'

const refusal = (schema: JsonSchema, value: unknown): BosunError => {
  try {
    assertOptions(schema, value, 'thing()')
  } catch (error) {
    expect(error).toBeInstanceOf(BosunError)
    return error as BosunError
  }
  throw new Error('the options were accepted')
}

const data: JsonSchema = { type: 'object', properties: { payload: { type: 'object', 'x-bosun-data': true } }, additionalProperties: false }

describe('values JSON cannot hold', () => {
  it('are refused in free-form data, each with its path, what was found and what to give instead', () => {
    const error = refusal(data, { payload: { n: 5n, list: ['ok', Symbol('s')], ratio: NaN, top: -Infinity, fine: [1, 'a', null, true] } })
    expect(error.code).toBe('INVALID_ARGUMENT')
    expect(error.details).toMatchObject({ paths: '$.payload.n,$.payload.list[1],$.payload.ratio,$.payload.top' })
    const notJson = 'must be JSON: a plain object, an array, a string, a finite number, a boolean or null'
    expect(error.message.split('\n').slice(1)).toEqual([
      `  - $.payload.n: ${notJson} (found the bigint 5n): convert it with Number(…), or String(…) beyond Number.MAX_SAFE_INTEGER`,
      `  - $.payload.list[1]: ${notJson} (found a symbol): give a string in place of the symbol`,
      `  - $.payload.ratio: ${notJson} (found NaN): JSON has no NaN or Infinity: give a finite number, or leave the option out for its default`,
      `  - $.payload.top: ${notJson} (found -Infinity): JSON has no NaN or Infinity: give a finite number, or leave the option out for its default`,
    ])
  })

  it('are refused for a plugin that declares no schema; functions, objects a constructor made, undefined and cycles are left alone', () => {
    const cycle: Record<string, unknown> = { name: 'loop' }
    cycle['self'] = cycle
    const options = { fn: () => 1, when: new Date(0), map: new Map([['k', 5n]]), skipped: undefined, cycle }
    expect(assertOptions(UNDECLARED_OPTIONS, options, 'thing()')).toBe(options)
    expect(refusal(UNDECLARED_OPTIONS, { ...options, limit: Infinity, cycle: { ...cycle, big: 2n ** 64n } }).details).toMatchObject({ paths: '$.cycle.big,$.limit' })
  })

  it('where the schema names a type, are reported once, by the type, showing what was given', () => {
    const error = refusal({ type: 'object', properties: { level: { type: 'integer' } } }, { level: 5n })
    expect(error.message).toBe('Invalid options for thing():\n  - $.level: must be an integer (found the bigint 5n)')
  })

  it('under a key that may hold a credential, are not shown', () => {
    expect(refusal(data, { payload: { apiKey: 12345678901234567890n } }).message).toContain('(found a bigint not shown: under this key it could be a credential): convert it')
  })

  it('refuse a plugin\'s options from createAgent with PLUGIN_OPTIONS_INVALID, naming the plugin and the path', async () => {
    const plugin = definePlugin({ name: 'payloads', schema: data, setup: () => {} })
    const error = await createAgent({ model: scripted(), plugins: [[plugin, { payload: { id: 7n } }]] }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
    expect((error as BosunError).message).toContain('Invalid options for plugin "payloads" (plugins[0]):\n  - $.payload.id: must be JSON: a plain object, an array, a string, a finite number, a boolean or null (found the bigint 7n)')
  })
})

describe('x-bosun-function', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { pick: { 'x-bosun-function': true, 'x-expected': 'a function choosing one item, given in code' }, test: { 'x-bosun-function': true } },
  }

  it('takes a function and nothing else, in the words of x-expected (or its own)', () => {
    expect(assertOptions(schema, { pick: () => 0, test: async () => true }, 'thing()')).toBeDefined()
    for (const value of [5n, Symbol('pick'), 'pick', 0.5, null, {}, []]) {
      const error = refusal(schema, { pick: value })
      expect(error.details).toMatchObject({ paths: '$.pick' })
      expect(error.message).toMatch(/^Invalid options for thing\(\):\n {2}- \$\.pick: must be a function choosing one item, given in code \(found [^\n]+\)$/)
    }
    expect(refusal(schema, { test: 1n }).message).toBe('Invalid options for thing():\n  - $.test: must be a function, given in code (a config file cannot hold one) (found the bigint 1n)')
  })
})
