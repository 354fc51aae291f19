// x-bosun-bounds: a rule between two options (minDelayMs ≤ maxDelayMs), a field left out counted
// at its default, read the same from code and from a config file.
import { describe, expect, it } from 'vitest'
import { BosunError } from './errors.js'
import { definePlugin } from './plugin.js'
import { assertOptions, type JsonSchema } from './schema.js'
import { expectConfigLines, expectPluginCodeLines, type OptionsCase } from './testing/options-lines.js'

const schema: JsonSchema = {
  type: 'object',
  properties: {
    minDelayMs: { type: 'integer', minimum: 0, default: 500 },
    maxDelayMs: { type: 'integer', minimum: 0, default: 60_000 },
    low: { type: 'number', default: 0.25 },
    high: { type: 'number', default: 0.8 },
    tokenLimit: { type: 'integer' },
    apiToken: { type: 'integer' },
  },
  'x-bosun-bounds': {
    minDelayMs: { maximum: 'maxDelayMs' },
    low: { exclusiveMaximum: 'high' },
    tokenLimit: { minimum: 'apiToken' },
  },
  additionalProperties: false,
}

/** The problem lines assertOptions throws for `options` (none: it passed). */
function lines(checked: JsonSchema, options: unknown): string[] {
  try {
    assertOptions(checked, options, 'bounded()')
    return []
  } catch (error) {
    return (error as Error).message.split('\n').slice(1).map((line) => line.replace(/^ {2}- /, ''))
  }
}

const plugin = definePlugin<Record<string, unknown>>({ name: 'bounded', schema, setup() {} })

const cases: OptionsCase[] = [
  // Both given.
  [{ minDelayMs: 600, maxDelayMs: 500 }, '$.minDelayMs: must be at most maxDelayMs (500) (found 600)'],
  [{ low: 0.5, high: 0.5 }, '$.low: must be below high (0.5) (found 0.5)'],
  // The other left out: its default is the limit.
  [{ minDelayMs: 70_000 }, '$.minDelayMs: must be at most maxDelayMs (60000 by default) (found 70000)'],
  [{ low: 0.9 }, '$.low: must be below high (0.8 by default) (found 0.9)'],
  // The bounded one left out: the other is bounded by its default, the other way.
  [{ maxDelayMs: 100 }, '$.maxDelayMs: must be at least minDelayMs (500 by default) (found 100)'],
  [{ high: 0.25 }, '$.high: must be above low (0.25 by default) (found 0.25)'],
  // The limit is shown by the rules of a found value: not under a key that may hold a credential.
  [{ tokenLimit: 5, apiToken: 9 }, '$.tokenLimit: must be at least apiToken (a number not shown: under this key it could be a credential) (found 5)'],
]

describe('x-bosun-bounds', () => {
  it('refuses each broken bound with one line, from code (assertOptions and createAgent) and from a config file alike', async () => {
    for (const [options, line] of cases) {
      expect(() => assertOptions(schema, options, 'bounded()'), line).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: `Invalid options for bounded():\n  - ${line}` }))
    }
    await expectPluginCodeLines(plugin, cases)
    await expectConfigLines(plugin, cases)
  })

  it('accepts what keeps the bounds: equal for maximum, defaults, the other option alone when it agrees', () => {
    for (const options of [{}, { minDelayMs: 500, maxDelayMs: 500 }, { minDelayMs: 60_000 }, { maxDelayMs: 500 }, { low: 0, high: 0.1 }, { high: 0.3 }, { tokenLimit: 3 }]) {
      expect(assertOptions(schema, options, 'bounded()')).toBe(options)
    }
  })

  it('leaves a value that breaks a rule of its own (or is no number) to that rule: one line, what to fix first', () => {
    expect(lines(schema, { minDelayMs: 'soon', maxDelayMs: 5 })).toEqual(['$.minDelayMs: must be an integer (found "soon")'])
    expect(lines(schema, { minDelayMs: -1, maxDelayMs: -5 })).toEqual(['$.minDelayMs: must be >= 0 (found -1)', '$.maxDelayMs: must be >= 0 (found -5)'])
    // The limit breaking its own rule: the bound on the other option is not reported either.
    expect(lines(schema, { minDelayMs: 3, maxDelayMs: -5 })).toEqual(['$.maxDelayMs: must be >= 0 (found -5)'])
  })

  it('checks the options of a nested object against that object\'s own fields', () => {
    const nested: JsonSchema = { type: 'object', properties: { retry: schema } }
    expect(lines(nested, { retry: { maxDelayMs: 1 } })).toEqual(['$.retry.maxDelayMs: must be at least minDelayMs (500 by default) (found 1)'])
  })

  it.each<[string, JsonSchema]>([
    ['a name that is not a property', { type: 'object', properties: { a: {} }, 'x-bosun-bounds': { a: { maximum: 'b' } } }],
    ['a relation JSON Schema does not have', { type: 'object', properties: { a: {}, b: {} }, 'x-bosun-bounds': { a: { lessThan: 'b' } } }],
    ['defaults that break their own bound', { type: 'object', properties: { a: { default: 2 }, b: { default: 1 } }, 'x-bosun-bounds': { a: { maximum: 'b' } } }],
  ])('makes a schema with %s invalid: INVALID_PLUGIN when the plugin is defined', (_, broken) => {
    let error: unknown
    try {
      definePlugin({ name: 'broken', schema: broken, setup() {} })
    } catch (e) {
      error = e
    }
    expect(BosunError.is(error, 'INVALID_PLUGIN')).toBe(true)
    expect((error as Error).message).toContain('x-bosun-bounds')
  })
})
