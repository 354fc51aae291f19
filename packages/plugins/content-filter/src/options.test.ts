import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '@bosun/core'
import contentFilter, { type Options } from './index.js'

const build = (options: unknown) => createAgent({ model: scripted(), plugins: [[contentFilter, options]] })

describe('content-filter options: the schema', () => {
  it.each<[string, Options]>([
    ['no rules', { rules: [] }],
    ['a pattern with flags', { rules: [{ id: 'card', pattern: '\\d{16}', flags: 'iu', action: 'redact', replacement: '[card]' }] }],
    ['keywords on both sides', { rules: [{ id: 'k', keywords: ['café', 'crème brûlée'], wholeWords: false, action: 'reject', scope: 'both' }] }],
    ['a maxLength on output', { rules: [{ id: 'long', maxLength: 100, action: 'redact', scope: 'output' }], outputWindow: 16 }],
    ['a predicate from code', { rules: [{ id: 'fn', test: (text) => text.includes('x'), action: 'reject' }] }],
  ])('accepts %s', async (_, options) => {
    const agent = await build(options)
    await agent.close()
  })

  it.each<[string, unknown, string]>([
    ['no rules', {}, '$.rules'],
    ['a rule without id and action', { rules: [{ pattern: 'x' }] }, '$.rules[0].id,$.rules[0].action'],
    ['an unknown action', { rules: [{ id: 'a', pattern: 'x', action: 'drop' }] }, '$.rules[0].action'],
    ['an unknown scope', { rules: [{ id: 'a', pattern: 'x', action: 'reject', scope: 'tools' }] }, '$.rules[0].scope'],
    ['a rule with no matcher', { rules: [{ id: 'a', action: 'reject' }] }, '$.rules[0].pattern,$.rules[0].keywords,$.rules[0].maxLength,$.rules[0].test,$.rules[0]'],
    ['a rule with two matchers', { rules: [{ id: 'a', pattern: 'x', keywords: ['y'], action: 'reject' }] }, '$.rules[0]'],
    ['flags without a pattern', { rules: [{ id: 'a', keywords: ['y'], flags: 'i', action: 'reject' }] }, '$.rules[0]'],
    ['unknown flags', { rules: [{ id: 'a', pattern: 'x', flags: 'x', action: 'reject' }] }, '$.rules[0].flags'],
    ['an empty keyword list', { rules: [{ id: 'a', keywords: [], action: 'reject' }] }, '$.rules[0].keywords'],
    ['a negative maxLength', { rules: [{ id: 'a', maxLength: -1, action: 'reject' }] }, '$.rules[0].maxLength'],
    ['a misspelt field', { rules: [{ id: 'a', pattern: 'x', action: 'reject', replace: 'y' }] }, '$.rules[0].replace'],
  ])('refuses %s with PLUGIN_OPTIONS_INVALID naming the path', async (_, options, paths) => {
    await expect(build(options)).rejects.toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', details: { paths } })
  })
})

describe('content-filter options: checked in setup, when the agent is built', () => {
  it('an invalid regular expression fails naming $.rules[0].pattern and the RegExp error', async () => {
    const error = await build({ rules: [{ id: 'a', pattern: '(unclosed', action: 'reject' }] }).catch((e: unknown) => e)
    // an options error found by setup reaches the caller as it is, not wrapped as a setup failure
    expect(error).toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', details: { what: 'plugin "content-filter"', paths: '$.rules[0].pattern' } })
    // the shared formatter's line: `$.path: message`, as the schema's own errors read
    expect((error as Error).message).toContain(
      'Invalid options for plugin "content-filter":\n  - $.rules[0].pattern: must be a valid regular expression: ',
    )
    expect((error as Error).message).toMatch(/Unterminated group$/) // V8's own words
  })

  it('collects every problem, each with its path', async () => {
    const options = {
      rules: [
        { id: 'a', pattern: 'ok', action: 'reject' },
        { id: 'b', pattern: '[z-a]', action: 'redact' },
        { id: 'a', pattern: 'x', flags: 'uv', action: 'reject' },
        { id: 'c', test: 'not a function', action: 'reject' },
        { id: 'd', test: () => true, action: 'reject', scope: 'output' },
        { id: 'e', keywords: ['\u0301'], action: 'reject' },
      ],
    }
    const error = await build(options).catch((e: unknown) => e)
    expect((error as { details: unknown }).details).toEqual({
      what: 'plugin "content-filter"',
      paths: '$.rules[1].pattern,$.rules[2].id,$.rules[2].flags,$.rules[3].test,$.rules[4].scope,$.rules[5].keywords[0]',
    })
    const lines = (error as Error).message.split('\n').slice(1)
    expect(lines.map((line) => line.replace(/(RegExp flags|regular expression): .*/, '$1: …'))).toEqual([
      '  - $.rules[1].pattern: must be a valid regular expression: …',
      '  - $.rules[2].id: must be unique: the rule at rules[0] has the id "a" too',
      '  - $.rules[2].flags: must be valid RegExp flags: …',
      '  - $.rules[3].test: must be a function (text, message) => boolean | string, given in code (found "not a function")',
      '  - $.rules[4].scope: must be "input" for a test predicate: it judges input messages only (found "output")',
      '  - $.rules[5].keywords[0]: must keep a letter once case and accents are folded',
    ])
  })
})
