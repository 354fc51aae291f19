// A plugin's bad options give the same message from code (createAgent) and from a config: one
// formatter (schema.ts schemaProblems); a config only puts the file and the entry's key path first.
import { describe, expect, it } from 'vitest'
import scriptedAdapter, { scripted } from '@bosun/adapter-scripted'
import { validateConfig } from './config/validate.js'
import { createAgent } from './create-agent.js'
import { BosunError } from './errors.js'
import { definePlugin } from './plugin.js'
import { adapterOptionProblems } from './adapter-kit/options.js'
import { optionsError } from './schema.js'
import { memoryStore } from './store/memory.js'

const tagger = definePlugin<{ tag: string }>({
  name: 'tagger',
  schema: {
    type: 'object',
    properties: {
      tag: { type: 'string', minLength: 1 },
      repeat: { type: 'integer', minimum: 1 },
      mode: { anyOf: [{ const: 'fast' }, { type: 'integer' }], 'x-expected': '"fast" or a number of steps' },
    },
    required: ['tag'],
    additionalProperties: false,
  },
  setup() {},
})

const KEY = 'sk-proj-SECRETabcdefghij1234567890'
const bad = { tag: '', repeat: 'two', tagg: 'x', mode: 'slow', [KEY]: true }

async function fromCode(options: unknown): Promise<string> {
  const error = await createAgent({ model: scripted({ responses: [] }), store: memoryStore(), plugins: [[tagger, options as never]] }).catch((e: unknown) => e)
  expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
  return (error as Error).message
}

async function fromConfig(options: unknown): Promise<string> {
  const config = { model: { adapter: scriptedAdapter }, plugins: [[tagger, options]] }
  const error = await validateConfig({ config: config as never, file: '/project/bosun.config.ts', dir: '/project' }, { env: {} }).catch((e: unknown) => e)
  expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
  return (error as Error).message
}

describe('options errors', () => {
  it('from code and from a config: the same message for each option, the config adds where', async () => {
    const code = (await fromCode(bad)).split('\n').slice(1).map((line) => line.replace(/^ {2}- \$/, ''))
    const config = (await fromConfig(bad)).split('\n').slice(1).map((line) => line.replace(/^ {2}- \$\.plugins\[0\]\[1\](.*?) \(plugin "tagger"\)/, '$1'))
    expect(code).toEqual([
      '.tagg: unknown key "tagg" — did you mean "tag"?',
      '[<credential>]: unknown key that looks like a credential, not shown: put the key in an environment variable and name that variable with the adapter\'s "apiKeyEnv" option (or a plugin\'s own …Env option).',
      '.tag: must not be empty (found "")',
      '.repeat: must be an integer (found "two")',
      '.mode: must be "fast" or a number of steps (found "slow")',
    ])
    expect(config).toEqual(code)
  })

  it('from code, a key that looks like a credential is named by neither the message nor the details', async () => {
    const error = await createAgent({ model: scripted({ responses: [] }), plugins: [[tagger, { tag: 'a', [KEY]: 1 }]] }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
    expect(JSON.stringify({ message: (error as Error).message, details: (error as BosunError).details })).not.toContain('SECRET')
    expect((error as BosunError).details).toMatchObject({ paths: '$[<credential>]' })
  })
})

describe('options errors: values that may be credentials, keys a schema refuses, checks outside the schema', () => {
  const proxy = definePlugin<Record<string, unknown>>({
    name: 'proxy',
    schema: {
      type: 'object',
      properties: {
        tokenEnv: { type: 'string', pattern: '^[A-Z_]+$' },
        accessToken: { type: 'integer' },
        headers: { type: 'object', propertyNames: { pattern: '^[a-z-]+$', 'x-expected': 'a lower-case header name' }, additionalProperties: { type: 'string', maxLength: 3 } },
        url: { type: 'string', maxLength: 10 },
      },
      additionalProperties: false,
    },
    setup() {},
  })

  it('never quote a value under a secret-looking or …Env key or in headers, whatever it looks like; name a refused key by its rule', async () => {
    const options = { tokenEnv: 'hunter2 now', accessToken: 'hunter2', headers: { 'x-pass': 'hunter2', 'Bad Name': 'a' }, url: 'user:hunter2@example.com' }
    const error = await createAgent({ model: scripted({ responses: [] }), plugins: [[proxy, options]] }).catch((e: unknown) => e)
    expect((error as Error).message.split('\n').slice(1).sort()).toEqual([
      '  - $.accessToken: must be an integer (found a string not shown: under this key it could be a credential)',
      '  - $.headers["Bad Name"]: the key must be a lower-case header name',
      '  - $.headers["x-pass"]: must be at most 3 characters long (found a string not shown: under this key it could be a credential)',
      '  - $.tokenEnv: must match pattern "^[A-Z_]+$" (found a string not shown: under this key it could be a credential)',
      // no scheme, but user:password@ all the same
      "  - $.url: must be at most 10 characters long (found a string that looks like a credential, not shown: put the key in an environment variable and name that variable with the adapter's \"apiKeyEnv\" option (or a plugin's own …Env option))",
    ])
    expect(JSON.stringify((error as BosunError).details)).not.toContain('hunter2')
  })

  it('a check outside the schema reads like the schema: optionsError, with found described the same way', () => {
    const error = optionsError('plugin "proxy"', [
      { keys: ['rules', 0, 'pattern'], message: 'must be a valid regular expression' },
      { keys: ['url'], message: 'must be a URL that parses', found: 'http://exa_mple:99999' },
      { keys: ['apiKeyEnv'], message: 'must name a set variable', found: 'hunter2' },
    ])
    expect([error.code, error.details]).toEqual(['PLUGIN_OPTIONS_INVALID', { what: 'plugin "proxy"', paths: '$.rules[0].pattern,$.url,$.apiKeyEnv' }])
    expect(error.message).toBe([
      'Invalid options for plugin "proxy":',
      '  - $.rules[0].pattern: must be a valid regular expression',
      '  - $.url: must be a URL that parses (found "http://exa_mple:99999")',
      '  - $.apiKeyEnv: must name a set variable (found a string not shown: under this key it could be a credential)',
    ].join('\n'))
  })

  it('an adapter\'s baseURL that does not parse is not quoted when its query, fragment or userinfo holds a key', () => {
    for (const baseURL of ['https://p.example:99999/v1?key=SECRET12', 'https://p.example:99999/v1#access_token=SECRET', 'https://u:SECRET12@p.example:99999']) {
      const error = optionsError('openai()', adapterOptionProblems({ baseURL }, 'https://api.example/v1'))
      expect(error.message).toContain('$.baseURL: must be a URL that parses')
      expect(error.message).not.toContain('SECRET')
    }
    // One without them is still quoted: it is what the user wrote.
    expect(optionsError('openai()', adapterOptionProblems({ baseURL: 'https://p.example:99999/v1' }, 'https://api.example/v1')).message).toContain('(found "https://p.example:99999/v1")')
  })
})
