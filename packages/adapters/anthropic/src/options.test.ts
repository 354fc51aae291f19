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

  it('refuses bad options with INVALID_ARGUMENT naming the field', () => {
    const cases: [object, string][] = [
      [{}, 'anthropic(): "model" must be a non-empty string, e.g. "claude-sonnet-4-5" (found undefined).'],
      [{ model: 'm', maxTokens: 1.5 }, 'anthropic(): "maxTokens" must be a positive integer (found 1.5).'],
      [{ model: 'm', temperature: -1 }, 'anthropic(): "temperature" must be a number from 0 to 1 (found -1).'],
      [{ model: 'm', reasoningEffort: 'max' }, 'anthropic(): "reasoningEffort" must be "low", "medium" or "high" (found "max").'],
      [{ model: 'm', baseURL: 'ftp://x' }, 'anthropic(): "baseURL" must start with http:// or https://, e.g. "https://api.anthropic.com" (without /v1) (found "ftp://x").'],
      [{ model: 'm', idleTimeoutMs: 0 }, 'anthropic(): "idleTimeoutMs" must be a positive integer (ms) (found 0).'],
      [{ model: 'm', timeoutMs: 1.5 }, 'anthropic(): "timeoutMs" must be a positive integer (ms) (found 1.5).'],
      [{ model: 'm', headers: { a: 1 } }, 'anthropic(): "headers" must be an object of string values.'],
      [{ model: 'm', headers: { 'bad name': 'x' } }, expect.stringContaining('anthropic(): "headers" must hold valid HTTP header names and values') as unknown as string],
      [{ model: 'm', apiKey: 'sk-…' }, expect.stringContaining('anthropic(): "apiKey" is not an option') as unknown as string],
    ]
    for (const [options, message] of cases) {
      expect(() => anthropic({ apiKeyEnv: KEY_ENV, ...options } as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message }))
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
