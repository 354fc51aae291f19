// The options contract: the JSON Schema a config file is checked against, the same checks in
// code, the defaults, and the API key read from the environment.
import { describe, expect, it } from 'vitest'
import { BosunError, createAdapter } from '@bosun/core'
import definition, { anthropic, anthropicOptionsSchema } from './index.js'
import { resolveOptions } from './options.js'
import { KEY_ENV, SECRET } from './testing/helpers.js'

describe('the options schema', () => {
  it('is the default export, named anthropic, and accepts every documented option', async () => {
    expect([definition.kind, definition.name, definition.schema]).toEqual(['bosun-adapter', 'anthropic', anthropicOptionsSchema])
    const adapter = await createAdapter(definition, {
      model: 'claude-sonnet-4-5',
      baseURL: 'https://proxy.example.com',
      apiKeyEnv: KEY_ENV,
      maxTokens: 8192,
      temperature: 0.3,
      reasoningEffort: 'high',
      headers: { 'anthropic-beta': 'x' },
      idleTimeoutMs: 5000,
      timeoutMs: 600_000,
    })
    expect([adapter.name, adapter.model]).toEqual(['anthropic', 'claude-sonnet-4-5'])
  })

  it('reports every mistake of a config file with its JSON path', async () => {
    const error = await Promise.resolve(
      createAdapter(definition, { maxTokens: 0, temperature: 3, reasoningEffort: 'max', apiKeyEnv: 'not a name', headers: { a: 1 }, baseURL: 'api.anthropic.com', idleTimeoutMs: 1.5, timeoutMs: 0, modle: 'x' }),
    ).catch((e: unknown) => e)
    expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
    const paths = String((error as BosunError).details.paths).split(',')
    expect(paths.sort()).toEqual(['$.apiKeyEnv', '$.baseURL', '$.headers.a', '$.idleTimeoutMs', '$.maxTokens', '$.model', '$.modle', '$.reasoningEffort', '$.temperature', '$.timeoutMs'])
  })
})

describe('anthropic() in code', () => {
  it('fills in the defaults', () => {
    expect(resolveOptions({ model: 'm' })).toEqual({
      model: 'm',
      baseURL: 'https://api.anthropic.com',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      maxTokens: 4096,
      temperature: undefined,
      reasoningEffort: undefined,
      headers: {},
      idleTimeoutMs: 60000,
      timeoutMs: undefined,
    })
  })

  it('refuses bad options with INVALID_ARGUMENT, in the words a config file gets (the schema is the one source)', async () => {
    const cases: [object, string][] = [
      [{}, '$.model: is required'],
      [{ model: 'm', maxTokens: 1.5 }, '$.maxTokens: must be an integer (found 1.5)'],
      [{ model: 'm', temperature: -1 }, '$.temperature: must be a number from 0 to 1 (found -1)'],
      [{ model: 'm', reasoningEffort: 'max' }, '$.reasoningEffort: must be one of "low", "medium", "high" (found "max")'],
      [{ model: 'm', baseURL: 'ftp://x' }, '$.baseURL: must be a URL that starts with http:// or https:// (no spaces, no user:password@, no #fragment), e.g. "https://api.anthropic.com" (found "ftp://x")'],
      [{ model: 'm', idleTimeoutMs: 0 }, '$.idleTimeoutMs: must be an integer from 1 to 2147483647 (found 0)'],
      [{ model: 'm', timeoutMs: 2 ** 31 }, '$.timeoutMs: must be an integer from 1 to 2147483647 (found 2147483648)'],
      [{ model: 'm', timeoutMs: 1.5 }, '$.timeoutMs: must be an integer (found 1.5)'],
      [{ model: 'm', headers: { a: 1 } }, '$.headers.a: must be a string without line breaks (found a number not shown: under this key it could be a credential)'],
      [{ model: 'm', headers: { 'bad name': 'x' } }, '$.headers["bad name"]: the key must be an HTTP header name (letters, digits and !#$%&\'*+.^_`|~-)'],
      [{ model: 'm', apiKey: 'sk-…' }, '$.apiKey: unknown key "apiKey" — did you mean "apiKeyEnv"?'],
      // A key pasted where the variable's name belongs, though it passes for one: refused before "… is missing" could quote it.
      [{ model: 'm', apiKeyEnv: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, '$.apiKeyEnv: must name an environment variable (letters, digits and "_", like "MY_API_KEY"), not hold the key itself — put the key in a variable and name it here (the value given is not shown)'],
    ]
    for (const [options, line] of cases) {
      const given = { apiKeyEnv: KEY_ENV, ...options }
      expect(() => anthropic(given as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: `Invalid options for anthropic():\n  - ${line}` }))
      const viaDefinition = await createAdapter(definition, given).catch((e: unknown) => e)
      expect(viaDefinition).toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', message: `Invalid options for adapter "anthropic":\n  - ${line}` })
    }
  })

  it('reads the key from the variable named by apiKeyEnv when created, and names the variable when it is missing', () => {
    delete process.env.BOSUN_TEST_UNSET_KEY
    const error = (() => {
      try {
        anthropic({ model: 'm', apiKeyEnv: 'BOSUN_TEST_UNSET_KEY' })
      } catch (e) {
        return e as BosunError
      }
    })()
    expect(error).toMatchObject({
      code: 'AUTH',
      retryable: false,
      message: 'The Anthropic API key is missing: set the environment variable BOSUN_TEST_UNSET_KEY (or name another one with the option apiKeyEnv).',
    })
    expect(anthropic({ model: 'm', apiKeyEnv: KEY_ENV }).model).toBe('m')
    expect(process.env[KEY_ENV]).toBe(SECRET)
  })
})
