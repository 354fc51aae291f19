import { BosunError, createAdapter } from '@bosun/core'
import { afterEach, describe, expect, it } from 'vitest'
import definition, { openai, openaiOptionsSchema } from './index.js'

const good = [
  { model: 'gpt-4.1' },
  { model: 'deepseek-chat', baseURL: 'https://api.deepseek.com', apiKeyEnv: 'OPENAI_OPTIONS_TEST_KEY' },
  { model: 'llama3.2', baseURL: 'http://127.0.0.1:11434/v1' },
  {
    model: 'o4-mini', baseURL: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_OPTIONS_TEST_KEY', maxTokens: 4096, temperature: 0,
    reasoningEffort: 'high', headers: { 'X-Title': 'bosun' }, idleTimeoutMs: 120_000, timeoutMs: 600_000, maxTokensField: 'max_completion_tokens',
    provider: 'openai', reasoningPassback: false,
  },
]

const bad: [unknown, RegExp][] = [
  [{}, /model must be a non-empty string/],
  [{ model: '' }, /model must be a non-empty string/],
  [{ model: 'm', baseURL: 'api.deepseek.com' }, /baseURL must start with http:\/\/ or https:\/\/, e\.g\. "http:\/\/localhost:11434\/v1" \(found "api\.deepseek\.com"\)/],
  [{ model: 'm', baseURL: 'https://user:pw@example.com/v1' }, /baseURL must be an http\(s\) URL without credentials/],
  [{ model: 'm', apiKeyEnv: 'sk-live-123' }, /apiKeyEnv must name an environment variable .* the value given is not shown/],
  [{ model: 'm', maxTokens: 0 }, /maxTokens must be a positive integer \(found 0\)/],
  [{ model: 'm', maxTokens: 1.5 }, /maxTokens must be a positive integer/],
  [{ model: 'm', temperature: 3 }, /temperature must be a number from 0 to 2 \(found 3\)/],
  [{ model: 'm', reasoningEffort: '' }, /reasoningEffort must be a non-empty string/],
  [{ model: 'm', headers: { 'X-A': 1 } }, /headers\.X-A must be a string \(found 1\)/],
  [{ model: 'm', headers: { 'bad header': 'x' } }, /headers\.bad header is not a valid HTTP header/],
  [{ model: 'm', idleTimeoutMs: -1 }, /idleTimeoutMs must be a positive integer/],
  [{ model: 'm', timeoutMs: 0 }, /timeoutMs must be a positive integer/],
  [{ model: 'm', timeoutMs: 2.5 }, /timeoutMs must be a positive integer/],
  [{ model: 'm', maxTokensField: 'max_output_tokens' }, /maxTokensField must be "max_tokens" or "max_completion_tokens"/],
  [{ model: 'm', reasoningPassback: 'yes' }, /reasoningPassback must be a boolean/],
  [{ model: 'm', apiKey: 'sk-live-123' }, /apiKey is not a known option/],
  ['gpt-4.1', /options must be an object/],
]

afterEach(() => {
  delete process.env.OPENAI_OPTIONS_TEST_KEY
})

describe('options', () => {
  it('accepts good options, from code and through the schema', async () => {
    process.env.OPENAI_OPTIONS_TEST_KEY = 'sk-test'
    const before = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = 'sk-test-default'
    try {
      for (const options of good) {
        const adapter = openai(options as Parameters<typeof openai>[0])
        expect([adapter.name, adapter.model]).toEqual(['openai', options.model])
        const created = await createAdapter(definition, options)
        expect(created.name).toBe('openai')
      }
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = before
    }
  })

  it('refuses bad options from code with INVALID_ARGUMENT naming the option', () => {
    for (const [options, message] of bad) {
      let error: unknown
      try {
        openai(options as Parameters<typeof openai>[0])
      } catch (e) {
        error = e
      }
      expect(BosunError.is(error, 'INVALID_ARGUMENT'), String(message)).toBe(true)
      expect((error as Error).message).toMatch(message)
      expect((error as Error).message).not.toContain('sk-live-123')
    }
  })

  it('refuses the same bad options through the schema (config files)', async () => {
    for (const [options] of bad) {
      if (typeof options !== 'object') continue
      const error = await createAdapter(definition, options).catch((e: unknown) => e)
      expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID'), JSON.stringify(options)).toBe(true)
    }
  })

  it('the schema lists every option the code accepts', () => {
    expect(Object.keys(openaiOptionsSchema.properties as object).sort()).toEqual(
      ['apiKeyEnv', 'baseURL', 'headers', 'idleTimeoutMs', 'maxTokens', 'maxTokensField', 'model', 'provider', 'reasoningEffort', 'reasoningPassback', 'temperature', 'timeoutMs'],
    )
  })

  it('an apiKeyEnv naming an unset variable fails at creation, naming the variable', () => {
    const error = (() => {
      try {
        openai({ model: 'deepseek-chat', baseURL: 'https://api.deepseek.com', apiKeyEnv: 'OPENAI_OPTIONS_TEST_KEY' })
      } catch (e) {
        return e
      }
    })()
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as Error).message).toContain('OPENAI_OPTIONS_TEST_KEY')
  })

  it('OpenAI itself without any key fails at creation; a local server needs none', () => {
    const before = process.env.OPENAI_API_KEY
    delete process.env.OPENAI_API_KEY
    try {
      expect(() => openai({ model: 'gpt-4.1' })).toThrow(/OPENAI_API_KEY/)
      expect(openai({ model: 'llama3.2', baseURL: 'http://127.0.0.1:11434/v1' }).provider).toBe('openai-compatible:127.0.0.1:11434')
    } finally {
      if (before !== undefined) process.env.OPENAI_API_KEY = before
    }
  })

  it('derives the provider tag from baseURL; the adapter exposes no key', () => {
    process.env.OPENAI_OPTIONS_TEST_KEY = 'sk-test-SECRET-4242'
    const deepseek = openai({ model: 'deepseek-chat', baseURL: 'https://api.deepseek.com', apiKeyEnv: 'OPENAI_OPTIONS_TEST_KEY' })
    expect(deepseek.provider).toBe('deepseek')
    expect(deepseek.baseURL).toBe('https://api.deepseek.com')
    expect(openai({ model: 'x', baseURL: 'https://openrouter.ai/api/v1' }).provider).toBe('openrouter')
    expect(JSON.stringify(deepseek)).not.toContain('SECRET')
    expect(Object.values(deepseek).join(' ')).not.toContain('SECRET')
  })
})
