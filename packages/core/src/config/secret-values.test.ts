// Masking by value: a registered secret (an `…Env` variable's value, an adapter's key) is masked
// wherever text leaves, whatever its shape — a word-like key has none for maskCredentials to see.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BosunError, serializeError } from '../errors.js'
import { looksLikeCredential, maskCredentials } from './credentials.js'
import { forgetSecretsForTesting, isSecretEnvName, maskSecretValues, registerSecret, registerSecretsFromEnv, registerSecretsNamed } from './secret-values.js'
import { harness } from '../testing/harness.js'
import { validateConfig } from './validate.js'

afterEach(() => {
  forgetSecretsForTesting()
  vi.restoreAllMocks()
})

const WORDLIKE = 'my-gateway-secret'

describe('the registry', () => {
  it('masks every occurrence of a registered value, the longest first', () => {
    registerSecret('hunter2')
    registerSecret('hunter2-admin')
    expect(maskSecretValues('key hunter2-admin, then hunter2 again: hunter2.')).toBe('key [redacted], then [redacted] again: [redacted].')
  })

  it('returns the same text when nothing is registered or nothing matches', () => {
    const text = 'Incorrect API key provided: my-gateway-secret.'
    expect(maskSecretValues(text)).toBe(text)
    registerSecret('another-secret')
    expect(maskSecretValues(text)).toBe(text)
  })

  it('ignores a value shorter than 6 characters (ordinary words would be masked), and trims', () => {
    registerSecret('admin')
    registerSecret('  ')
    registerSecret(undefined)
    expect(maskSecretValues('log in as admin with the admin password')).toBe('log in as admin with the admin password')
    registerSecret(`  ${WORDLIKE}\n`)
    expect(maskSecretValues(`the key ${WORDLIKE} is wrong`)).toBe('the key [redacted] is wrong')
  })

  it('registers the variables named, and those whose names say they are secrets', () => {
    registerSecretsNamed(['GATEWAY_KEY', 'UNSET'], { GATEWAY_KEY: WORDLIKE })
    expect(maskSecretValues(WORDLIKE)).toBe('[redacted]')
    registerSecretsFromEnv({ MY_API_KEY: 'apikey-value', HF_TOKEN: 'token-value', PGPASSWORD: 'pg-password', EDITOR: 'vim-editor', HOME: '/home/someone' })
    expect(maskSecretValues('apikey-value token-value pg-password vim-editor /home/someone')).toBe('[redacted] [redacted] [redacted] vim-editor /home/someone')
  })

  it('tells secret variable names from others', () => {
    for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'CLIENT_SECRET', 'DB_PASSWORD', 'PGPASSWORD', 'AWS_SECRET_ACCESS_KEY', 'APIKEY', 'NPM_AUTH']) {
      expect(isSecretEnvName(name), name).toBe(true)
    }
    for (const name of ['HOME', 'PATH', 'EDITOR', 'KEYBOARD_LAYOUT', 'TOKENIZERS_PARALLELISM', 'SSH_AUTH_SOCK', 'NODE_ENV']) {
      expect(isSecretEnvName(name), name).toBe(false)
    }
  })
})

describe('where text leaves', () => {
  it('serializeError masks the message and string details of any error', () => {
    registerSecret(WORDLIKE)
    const coded = new BosunError('AUTH', `HTTP 401: Incorrect API key provided: ${WORDLIKE}.`, { details: { body: `{"key":"${WORDLIKE}"}`, status: 401 } })
    expect(serializeError(coded)).toEqual({ code: 'AUTH', message: 'HTTP 401: Incorrect API key provided: [redacted].', details: { body: '{"key":"[redacted]"}', status: 401 } })
    expect(serializeError(new Error(`bad ${WORDLIKE}`)).message).toBe('bad [redacted]')
    expect(serializeError(`thrown ${WORDLIKE}`).message).toBe('thrown [redacted]')
  })

  it('maskCredentials and looksLikeCredential know registered values too', () => {
    registerSecret('hunter2')
    expect(maskCredentials('password hunter2 refused')).toBe('password [redacted] refused')
    expect(looksLikeCredential('hunter2')).toBe(true)
    expect(looksLikeCredential('hunter')).toBe(false)
  })

  it('a short value is not masked anywhere (no false masking of ordinary words)', () => {
    registerSecretsFromEnv({ SHORT_TOKEN: 'model' })
    expect(serializeError(new Error('the model failed')).message).toBe('the model failed')
    expect(maskCredentials('the model failed')).toBe('the model failed')
  })
})

describe('the config check', () => {
  it("registers the values of the variables a config's …Env options name", async () => {
    const config = { model: { adapter: 'scripted', options: { responses: [] } }, plugins: [[{ kind: 'bosun-plugin', name: 'gate', setup() {} }, { tokenEnv: 'GATE_TOKEN' }]] }
    await validateConfig({ config, file: '/nowhere/bosun.config.json', dir: '/nowhere' } as never, { env: { GATE_TOKEN: WORDLIKE } })
    expect(serializeError(new Error(`the gate refused ${WORDLIKE}`)).message).toBe('the gate refused [redacted]')
  })
})

describe('the log', () => {
  it("an observer's error no agent/error tap takes is logged with the secret masked", async () => {
    registerSecret(WORDLIKE)
    const logged: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
    const { agent } = await harness({ responses: [{ text: 'ok' }] })
    agent.hooks.status.tap('leaky', () => {
      throw new Error(`the gateway refused the token ${WORDLIKE}`)
    })
    agent.followup('hi')
    await agent.whenIdle()
    expect(logged.join('\n')).toContain('[bosun] "leaky" observing agent/status threw: Error: the gateway refused the token [redacted]')
    expect(logged.join('\n')).not.toContain(WORDLIKE)
  })
})
