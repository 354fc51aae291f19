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
    provider: 'openai', reasoningPassback: false, streamOptions: false,
  },
]

// Each line as the shared formatter writes it, from code and from a config alike (no value that may be a credential).
const bad: [unknown, string][] = [
  [{}, '$.model: is required'],
  [{ model: '' }, '$.model: must not be empty (found "")'],
  [{ model: 'm', baseURL: 'api.deepseek.com' }, '$.baseURL: must be a URL that starts with http:// or https:// (no spaces, no user:password@, no #fragment), e.g. "http://localhost:11434/v1" (found "api.deepseek.com")'],
  [{ model: 'm', baseURL: 'https://user:pw@example.com/v1' }, '$.baseURL: must be a URL that starts with http:// or https:// (no spaces, no user:password@, no #fragment), e.g. "http://localhost:11434/v1" (found a string that looks like a credential, not shown: '],
  [{ model: 'm', baseURL: 'http://exa_mple:99999/v1' }, '$.baseURL: must be a URL that parses (a valid host and port), e.g. "http://localhost:11434/v1" (found "http://exa_mple:99999/v1")'],
  [{ model: 'm', apiKeyEnv: 'sk-live-123' }, '$.apiKeyEnv: must be the name of an environment variable (letters, digits and "_"), like "DEEPSEEK_API_KEY" (found a string not shown: under this key it could be a credential)'],
  [{ model: 'm', apiKeyEnv: 'hunter2 now' }, '$.apiKeyEnv: must be the name of an environment variable (letters, digits and "_"), like "DEEPSEEK_API_KEY" (found a string not shown: under this key it could be a credential)'],
  [{ model: 'm', maxTokens: 0 }, '$.maxTokens: must be >= 1 (found 0)'],
  [{ model: 'm', maxTokens: 1.5 }, '$.maxTokens: must be an integer (found 1.5)'],
  [{ model: 'm', temperature: 3 }, '$.temperature: must be a number from 0 to 2 (found 3)'],
  [{ model: 'm', reasoningEffort: '' }, '$.reasoningEffort: must not be empty (found "")'],
  [{ model: 'm', headers: { 'X-A': 1 } }, '$.headers["X-A"]: must be a string without line breaks (found a number not shown: under this key it could be a credential)'],
  [{ model: 'm', headers: { 'bad header': 'x' } }, '$.headers["bad header"]: the key must be an HTTP header name (letters, digits and !#$%&\'*+.^_`|~-)'],
  [{ model: 'm', headers: { 'X-Proxy': 'hunter2\nX' } }, '$.headers["X-Proxy"]: must be a string without line breaks (found a string not shown: under this key it could be a credential)'],
  [{ model: 'm', headers: { 'X-Proxy': 'hunter2\u0000' } }, '$.headers["X-Proxy"]: must be a header fetch can send: a token for a name, a value of Latin-1 characters without line breaks or NUL (the value is not shown)'],
  [{ model: 'm', idleTimeoutMs: -1 }, '$.idleTimeoutMs: must be an integer from 1 to 2147483647 (found -1)'],
  [{ model: 'm', timeoutMs: 0 }, '$.timeoutMs: must be an integer from 1 to 2147483647 (found 0)'],
  [{ model: 'm', idleTimeoutMs: 2 ** 31 }, '$.idleTimeoutMs: must be an integer from 1 to 2147483647 (found 2147483648)'],
  [{ model: 'm', timeoutMs: 2.5 }, '$.timeoutMs: must be an integer (found 2.5)'],
  [{ model: 'm', maxTokensField: 'max_output_tokens' }, '$.maxTokensField: must be one of "max_tokens", "max_completion_tokens" (found "max_output_tokens")'],
  [{ model: 'm', reasoningPassback: 'yes' }, '$.reasoningPassback: must be a boolean (found "yes")'],
  [{ model: 'm', apiKey: 'sk-live-123' }, '$.apiKey: unknown key "apiKey" — did you mean "apiKeyEnv"?'],
  // A key pasted where the variable's name belongs, though it passes for one: refused before "… is not set" could quote it.
  [{ model: 'm', apiKeyEnv: 'ghp_hunter2aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }, '$.apiKeyEnv: must name an environment variable (letters, digits and "_", like "MY_API_KEY"), not hold the key itself — put the key in a variable and name it here (the value given is not shown)'],
  [{ model: 'm', apiKeyEnv: 'AKIAHUNTER2EXAMPLE00' }, '$.apiKeyEnv: must name an environment variable (letters, digits and "_", like "MY_API_KEY"), not hold the key itself — put the key in a variable and name it here (the value given is not shown)'],
  ['gpt-4.1', '$: must be an object (found "gpt-4.1")'],
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

  it('refuses bad options from code with INVALID_ARGUMENT, one line per problem', () => {
    for (const [options, line] of bad) {
      let error: unknown
      try {
        openai(options as Parameters<typeof openai>[0])
      } catch (e) {
        error = e
      }
      expect(BosunError.is(error, 'INVALID_ARGUMENT'), line).toBe(true)
      expect((error as Error).message.startsWith(`Invalid options for openai():\n  - ${line}`), (error as Error).message).toBe(true)
      expect((error as Error).message.split('\n')).toHaveLength(2)
      expect((error as BosunError).details).toEqual({ what: 'openai()', paths: line.slice(0, line.indexOf(': ')) })
      expect((error as Error).message).not.toMatch(/sk-live-123|hunter2|HUNTER2|pw@/)
    }
  })

  it('the schema refuses what the code does, in the same words (config files go through createAdapter)', async () => {
    for (const [options, line] of bad) {
      const error = await createAdapter(definition, options).catch((e: unknown) => e)
      // what only a parse can tell is checked in openai() itself, after the schema: INVALID_ARGUMENT from both
      const code = line.includes('must be a URL that parses') || line.includes('fetch can send') ? 'INVALID_ARGUMENT' : 'PLUGIN_OPTIONS_INVALID'
      expect(BosunError.is(error, code), line).toBe(true)
      expect((error as Error).message).toContain(`\n  - ${line}`)
    }
  })

  it('the schema lists every option the code accepts', () => {
    expect(Object.keys(openaiOptionsSchema.properties as object).sort()).toEqual(
      ['apiKeyEnv', 'baseURL', 'headers', 'idleTimeoutMs', 'maxTokens', 'maxTokensField', 'model', 'provider', 'reasoningEffort', 'reasoningPassback', 'streamOptions', 'temperature', 'timeoutMs'],
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
