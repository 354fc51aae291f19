// Masking by value: a registered secret (an `…Env` variable's value, an adapter's key) is masked
// wherever text leaves, whatever its shape — a word-like key has none for maskCredentials to see.
import { inspect } from 'node:util'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BosunError, serializeError } from '../errors.js'
import { looksLikeCredential, maskCredentials } from './credentials.js'
import { credentialsIn, forgetSecretsForTesting, isSecretEnvName, isSecretEnvOptionKey, maskSecretValues, registerEnvOptionSecrets, registerSecret, registerSecretsFromEnv } from './secret-values.js'
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

  it('registers the secret variables options name, and those whose names say they are secrets', () => {
    const options = [{ key: 'tokenEnv', name: 'GATEWAY' }, { key: 'apiKeyEnv', name: 'UNSET' }, { key: 'regionEnv', name: 'AWS_REGION' }]
    registerEnvOptionSecrets(options, { GATEWAY: WORDLIKE, AWS_REGION: 'eu-west-1' })
    expect(maskSecretValues(`${WORDLIKE} in eu-west-1`)).toBe('[redacted] in eu-west-1')
    registerSecretsFromEnv({ MY_API_KEY: 'apikey-value', HF_TOKEN: 'token-value', PGPASSWORD: 'pg-password', EDITOR: 'vim-editor', HOME: '/home/someone' })
    expect(maskSecretValues('apikey-value token-value pg-password vim-editor /home/someone')).toBe('[redacted] [redacted] [redacted] vim-editor /home/someone')
  })

  it("tells an …Env option whose key says it names a secret from others, by the same words as variable names", () => {
    for (const key of ['apiKeyEnv', 'keyEnv', 'tokenEnv', 'authTokenEnv', 'secretEnv', 'clientSecretEnv', 'passwordEnv', 'sslPasswordEnv', 'credentialsEnv', 'accessKeyEnv', 'openAIKeyEnv', 'API_KEYEnv']) {
      expect(isSecretEnvOptionKey(key), key).toBe(true)
    }
    // A value that is its own credential, or carries one, under a key no variable name ends in.
    for (const key of ['webhookUrlEnv', 'slackWebhookEnv', 'sentryDsnEnv', 'dsnEnv', 'authHeaderEnv', 'headersEnv', 'cookieEnv', 'authorizationEnv', 'signatureEnv']) {
      expect(isSecretEnvOptionKey(key), key).toBe(true)
    }
    for (const key of ['urlEnv', 'baseUrlEnv', 'baseURLEnv', 'regionEnv', 'targetEnv', 'hostEnv', 'keyboardEnv', 'monkeyEnv', 'tokenizerEnv', 'authorEnv', 'headerlessEnv', 'Env', 'apiKey']) {
      expect(isSecretEnvOptionKey(key), key).toBe(false)
    }
  })

  it("finds a URL's password and secret name=value pairs, as written and decoded, and nothing else of the value", () => {
    expect(credentialsIn('postgres://bosun:p%40ss%2Fword@db.internal:5432/app')).toEqual(['p%40ss%2Fword', 'p@ss/word'])
    expect(credentialsIn(' postgresql://bosun:pa@ss@db:5432/app?sslmode=require\n')).toEqual(['bosun:pa@ss', 'bosun:pa@ss'])
    expect(credentialsIn('postgres://db.internal/app?user=bosun&password=s3cret-pw&sslpassword=cert-pass')).toEqual(['s3cret-pw', 's3cret-pw', 'cert-pass', 'cert-pass'])
    expect(credentialsIn('host=db.internal user=bosun password=s3cret-pw')).toEqual(['s3cret-pw', 's3cret-pw'])
    expect(credentialsIn('Server=db;Uid=bosun;Pwd=s3cret-pw;')).toEqual(['s3cret-pw', 's3cret-pw'])
    expect(credentialsIn('postgres://bosun:bad%zz@db:notaport/app')).toEqual(['bad%zz', 'bad%zz'])
    // Credentials under any name maskCredentials knows them by: a signed URL's `sig`, an `api-key`.
    expect(credentialsIn('https://acct.blob.core.windows.net/c/f?sv=2020-08-04&sig=AbC%2BdEf123456')).toEqual(['AbC%2BdEf123456', 'AbC+dEf123456'])
    expect(credentialsIn('https://s3.example/b/k?X-Amz-Signature=0123456789abcdef&X-Amz-Date=20261204')).toEqual(['0123456789abcdef', '0123456789abcdef'])
    expect(credentialsIn('https://proxy.example/v1?api-key=gateway-secret')).toEqual(['gateway-secret', 'gateway-secret'])
    // A token as the user name; a password too short alone is masked with its user.
    expect(credentialsIn('https://ghp_abcdefghijklmnop1234@github.com/acme/repo.git')).toEqual(['ghp_abcdefghijklmnop1234', 'ghp_abcdefghijklmnop1234'])
    expect(credentialsIn('postgres://bosun:pw1@db/app')).toEqual(['bosun:pw1', 'bosun:pw1'])
    for (const plain of ['postgres://bosun@db.internal/app', 'postgres://postgres@localhost/app', 'http://localhost:11434/v1', 'us-east-1', 'https://proxy/v1?model=gpt&region=eu', '']) {
      expect(credentialsIn(plain), plain).toEqual([])
    }
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
  /** Checks a config whose one plugin takes `options`, with `env` as the environment. */
  const check = (options: Record<string, unknown>, env: Record<string, string>) => {
    const config = { model: { adapter: 'scripted', options: { responses: [] } }, plugins: [[{ kind: 'bosun-plugin', name: 'gate', setup() {} }, options]] }
    return validateConfig({ config, file: '/nowhere/bosun.config.json', dir: '/nowhere' } as never, { env })
  }
  const masked = (text: string) => serializeError(new Error(text)).message

  it("registers the values of the variables a config's …Env options name", async () => {
    await check({ tokenEnv: 'GATE_TOKEN' }, { GATE_TOKEN: WORDLIKE })
    expect(masked(`the gate refused ${WORDLIKE}`)).toBe('the gate refused [redacted]')
  })

  it('does not mask what an option that holds no secret names: a region, a base URL, a target stay readable', async () => {
    const env = { AWS_REGION: 'us-east-1', OLLAMA_URL: 'http://localhost:11434/v1', DEPLOY_TARGET: 'staging-eu' }
    await check({ regionEnv: 'AWS_REGION', baseUrlEnv: 'OLLAMA_URL', targetEnv: 'DEPLOY_TARGET' }, env)
    const text = 'could not connect to http://localhost:11434/v1 (us-east-1, staging-eu)'
    expect(masked(text)).toBe(text)
  })

  it('masks the whole value when the option key or the variable name says it is a secret', async () => {
    const env = { GATEWAY: 'gateway-key-1', SIGNER: 'signer-token-2', VAULT: 'vault-password-3', CI_DEPLOY_SECRET: 'deploy-secret-4' }
    await check({ apiKeyEnv: 'GATEWAY', tokenEnv: 'SIGNER', passwordEnv: 'VAULT', targetEnv: 'CI_DEPLOY_SECRET' }, env)
    expect(masked('gateway-key-1 signer-token-2 vault-password-3 deploy-secret-4')).toBe('[redacted] [redacted] [redacted] [redacted]')
  })

  it("masks a connection URL's password, as written and decoded, never its user, host or database", async () => {
    await check({ urlEnv: 'BOSUN_PG_URL' }, { BOSUN_PG_URL: 'postgres://bosun:hunter22%21@db.internal:5432/app' })
    expect(masked('connect ECONNREFUSED postgres://bosun:hunter22%21@db.internal:5432/app')).toBe('connect ECONNREFUSED postgres://bosun:[redacted]@db.internal:5432/app')
    expect(masked('password hunter22! refused for bosun at db.internal')).toBe('password [redacted] refused for bosun at db.internal')
    // maskCredentials (which also masks a URL with a password by shape, whole) agrees: the host stays.
    expect(maskCredentials('could not reach postgres://bosun:hunter22%21@db.internal:5432/app')).toBe('could not reach postgres://bosun:[redacted]@db.internal:5432/app')
  })

  it("masks a password given in a connection URL's query, not the rest of the URL", async () => {
    await check({ urlEnv: 'BOSUN_PG_URL' }, { BOSUN_PG_URL: 'postgres://db.internal/app?user=bosun&password=hunter22' })
    expect(masked('connect ECONNREFUSED postgres://db.internal/app?user=bosun&password=hunter22')).toBe('connect ECONNREFUSED postgres://db.internal/app?user=bosun&password=[redacted]')
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
  it('a secret holding quotes, a backslash or a line break is masked where an error\'s fields are printed', async () => {
    const secret = `it's"a\\key\nx`
    registerSecret(secret)
    const logged: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
    const { agent } = await harness({ responses: [{ text: 'ok' }] })
    agent.hooks.status.tap('leaky', () => {
      throw Object.assign(new Error('the gateway refused the request'), { body: `{"error":"bad key ${secret}"}`, sent: { apiKey: secret } })
    })
    agent.followup('hi')
    await agent.whenIdle()
    const log = logged.join('\n')
    expect(log).toContain('[redacted]')
    for (const fragment of ['a\\key', 'a\\\\key', 'a\\\\\\\\key']) expect(log).not.toContain(fragment)
  })
})

describe('escaped secrets', () => {
  // Characters that JSON and util.inspect escape, with plain ones between them.
  const tricky = fc.constantFrom("'", '"', '`', '\\', '\n', '\t', '\r', '\u0001', '\u001b', '\u007f', '\ud800', 'a', 'Z', '7', '-', ' ', 'é', '😀')
  const secretArb = fc.array(tricky, { minLength: 6, maxLength: 16 }).map((chars) => `k${chars.join('')}k`)
  const contextArb = fc.array(tricky, { maxLength: 8 }).map((chars) => chars.join(''))

  it('is masked in util.inspect of a value holding it (any quote inspect picks), in its JSON, and in its JSON inspected', () => {
    fc.assert(
      fc.property(secretArb, contextArb, contextArb, (secret, before, after) => {
        forgetSecretsForTesting()
        registerSecret(secret)
        const text = `${before}${secret}${after}`
        const json = JSON.stringify({ error: { message: text } })
        for (const written of [inspect({ body: text }), inspect([text]), JSON.stringify({ body: text }), inspect(Object.assign(new Error('refused'), { body: text })), inspect({ body: json }), inspect(Object.assign(new Error('refused'), { body: json }))]) {
          const masked = maskSecretValues(written)
          expect(masked, written).toContain('[redacted]')
        }
      }),
      { numRuns: 400 },
    )
  })

  it('a secret of several lines is masked where util.inspect splits a long string after each line break', () => {
    forgetSecretsForTesting()
    // A PEM key: one line holds a quote, so inspect picks another quote for that line alone.
    const secret = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg'kqhkiG9w0\n-----END PRIVATE KEY-----"
    registerSecret(secret)
    const body = `{"error":{"message":"the credential was refused by the gateway, check the service account: ${secret}"}}`
    const nested = { response: { status: 401, body } }
    for (const written of [inspect({ body }), inspect(nested), inspect(Object.assign(new Error('refused'), { body }))]) {
      // The case this is about: inspect wrote the string as one quoted piece per line.
      expect(written).toContain(" +\n")
      const masked = maskSecretValues(written)
      expect(masked, written).toContain('[redacted]')
      for (const line of ['BEGIN PRIVATE KEY', 'MIIEvQIBADANBg', 'kqhkiG9w0', 'END PRIVATE KEY']) expect(masked, written).not.toContain(line)
    }
    // The text around it stays.
    expect(maskSecretValues(inspect({ body }))).toContain('check the service account: [redacted]')
  })
})
