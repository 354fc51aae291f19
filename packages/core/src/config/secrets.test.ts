import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { BAD_FIXTURE_FILES, buildFixturePackages, configMessage, fixture } from '../testing/config-fixtures.js'
import { createAgentFromConfig } from './create.js'
import { loadConfig } from './load.js'
import { checkSecrets } from './secrets.js'
import type { BosunConfig } from './types.js'
import { validateConfig } from './validate.js'

beforeAll(buildFixturePackages, 120_000)

const SECRET = 'sk-test-SECRET-1234'

describe('checkSecrets', () => {
  it('refuses a string under any key ending in apiKey, token, secret or password, at any depth', () => {
    const options = {
      apiKey: SECRET,
      auth: { bearerToken: SECRET, clientSecret: SECRET, PASSWORD: SECRET },
      servers: [{ accessToken: SECRET }],
      maxTokens: 100,
      apiKeyEnv: 'SET_VARIABLE',
    }
    expect(checkSecrets(options, '$.model.options', { SET_VARIABLE: 'x' }).map((finding) => finding.path)).toEqual([
      '$.model.options.apiKey',
      '$.model.options.auth.bearerToken',
      '$.model.options.auth.clientSecret',
      '$.model.options.auth.PASSWORD',
      '$.model.options.servers[0].accessToken',
    ])
  })

  it('refuses credential headers written into a config (Authorization, x-api-key, api-key, Cookie), pointing at apiKeyEnv', () => {
    const options = {
      model: 'gpt-4.1',
      headers: { Authorization: `Bearer ${SECRET}`, 'x-api-key': SECRET, 'api-key': SECRET, Cookie: `s=${SECRET}`, 'X-Title': 'My agent', 'HTTP-Referer': 'https://example.com' },
    }
    const findings = checkSecrets(options, '$.model.options', {})
    expect(findings.map((finding) => finding.path)).toEqual([
      '$.model.options.headers.Authorization',
      '$.model.options.headers["x-api-key"]',
      '$.model.options.headers["api-key"]',
      '$.model.options.headers.Cookie',
    ])
    expect(findings.every((finding) => finding.literal)).toBe(true)
    expect(findings[0]!.message).toMatchInlineSnapshot(`"a literal secret in a config file is refused (it would end up in version control and logs). Headers are for routing and attribution: give the provider's key through the adapter's "apiKeyEnv" option, which reads it from the environment (no other credential can come from a config file)."`)
    expect(JSON.stringify(findings)).not.toContain('SECRET')
    // Option names still get the …Env suggestion, with a valid variable name.
    expect(checkSecrets({ api_key: SECRET }, '$', {})[0]!.message).toContain('"api_keyEnv": "MY_API_KEY"')
    expect(checkSecrets({ defaults: { 'x-api-key': SECRET } }, '$', {})[0]!.message).toContain('"MY_X_API_KEY"')
  })

  it('knows more credential names (access, subscription, private keys), and takes authorization and cookie only as whole words', () => {
    const options = {
      accessKey: SECRET, 'Ocp-Apim-Subscription-Key': SECRET, privateKey: SECRET, 'Proxy-Authorization': SECRET, 'Set-Cookie': SECRET,
      requireAuthorization: 'always', sessionCookie: 'sid', sourceKey: 'userId', maxTokens: 10,
    }
    expect(checkSecrets(options, '$', {}).map((finding) => finding.path)).toEqual([
      '$.accessKey', '$["Ocp-Apim-Subscription-Key"]', '$.privateKey', '$["Proxy-Authorization"]', '$["Set-Cookie"]',
    ])
  })

  it('inspects plain objects and arrays only: an object made by a constructor (an SDK model, a client) keeps its fields', () => {
    class Client {
      token = 'held by the client, not written in the config'
      nested = { apiKey: 'also the client\'s' }
    }
    const options = { model: new Client(), list: [new Client()], plain: { token: SECRET }, bare: Object.assign(Object.create(null), { secret: SECRET }) }
    expect(checkSecrets(options, '$', {}).map((finding) => finding.path)).toEqual(['$.plain.token', '$.bare.secret'])
  })

  it('checks that every …Env key names a variable that is set (an empty one counts as unset)', () => {
    const findings = checkSecrets({ apiKeyEnv: 'SET', tokenEnv: 'EMPTY', nested: { passwordEnv: 'UNSET' }, env: 'not a name' }, '$', { SET: 'x', EMPTY: '' })
    expect(findings.map(({ path, message }) => `${path}: ${message}`)).toMatchInlineSnapshot(`
      [
        "$.tokenEnv: environment variable "EMPTY" is not set. Set it where bosun runs (export EMPTY=…), or name another variable.",
        "$.nested.passwordEnv: environment variable "UNSET" is not set. Set it where bosun runs (export UNSET=…), or name another variable.",
      ]
    `)
  })

  it('passes a config whose variables are set', async () => {
    const resolved = await validateConfig(
      { config: { plugins: [['./needs-token.ts', { tokenEnv: 'BOSUN_TEST_TOKEN' }]] }, file: undefined, dir: fixture('bad/missing-env') },
      { env: { BOSUN_TEST_TOKEN: SECRET } },
    )
    expect(resolved.plugins).toMatchObject([[{ name: 'needs-token' }, { tokenEnv: 'BOSUN_TEST_TOKEN' }]])
  })
})

describe('a secret never appears in a message', () => {
  it('invalid JSON with a secret on the broken line: the position, not the text', async () => {
    expect(await configMessage(loadConfig({ cwd: fixture('bad/invalid-json-secret') }))).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/invalid-json-secret/bosun.config.json:
        - $: the file is not valid JSON: <fixtures>/bad/invalid-json-secret/bosun.config.json:2:60: Unexpected token 's'. Fix the JSON there (keys and strings in double quotes, no comma after the last item, no comments)."
    `)
  })

  it('invalid YAML with a secret on the broken line: the position, not the text', async () => {
    expect(await configMessage(loadConfig({ cwd: fixture('bad/invalid-yaml-secret') }))).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/invalid-yaml-secret/bosun.config.yaml:
        - $: the file is not valid YAML: <fixtures>/bad/invalid-yaml-secret/bosun.config.yaml:5:1: unexpected end of the stream within a double quoted scalar. Fix the YAML there (indent with spaces, keys of one level at the same column, every quote closed)."
    `)
  })

  it('not even in the causes of a JSON or YAML syntax error (what --debug prints)', async () => {
    for (const name of ['invalid-json-secret', 'invalid-yaml-secret']) {
      const error = await loadConfig({ cwd: fixture(`bad/${name}`) }).catch((e: unknown) => e)
      expect(inspect(error, { depth: 10 })).not.toContain('SECRET')
    }
  })

  it('in no bad fixture\'s message', async () => {
    for (const name of readdirSync(fixture('bad'))) {
      const message = await configMessage(loadConfig({ cwd: fixture(`bad/${name}`), env: {}, file: BAD_FIXTURE_FILES[name] }))
      expect(message).not.toContain('SECRET')
    }
  })

  it('not even where the options schema would quote the value', async () => {
    const config: BosunConfig = {
      model: { adapter: 'scripted', options: { apiKey: SECRET, responses: [{ text: 'x', token: SECRET }] } },
      store: ['store-jsonl', { dir: '.sessions', password: SECRET }],
      plugins: [['./needs-token.ts', { tokenEnv: SECRET }]],
    }
    const message = await configMessage(createAgentFromConfig(config, { cwd: fixture('bad/env-holds-secret'), env: {} }))
    expect(message).not.toContain('SECRET')
    expect(message).toMatchInlineSnapshot(`
      "Invalid config (no config file; names resolve from <fixtures>/bad/env-holds-secret):
        - $.model.options.apiKey (adapter "scripted"): a literal secret in a config file is refused (it would end up in version control and logs). Put it in an environment variable and name it: "apiKeyEnv": "MY_API_KEY".
        - $.model.options.responses[0].token (adapter "scripted"): a literal secret in a config file is refused (it would end up in version control and logs). Put it in an environment variable and name it: "tokenEnv": "MY_TOKEN".
        - $.store[1].password (store "store-jsonl"): a literal secret in a config file is refused (it would end up in version control and logs). Put it in an environment variable and name it: "passwordEnv": "MY_PASSWORD".
        - $.plugins[0][1].tokenEnv (plugin "./needs-token.ts"): must name an environment variable (letters, digits and "_", like "MY_API_KEY"), not hold the key itself — put the key in a variable and name it here (the value given is not shown)"
    `)
  })
})

it('loads a JSON config that starts with a byte-order mark', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'bosun-bom-'))
  try {
    writeFileSync(join(folder, 'bosun.config.json'), '\uFEFF{ "system": "Hello" }')
    expect((await loadConfig({ cwd: folder, validate: false })).config).toEqual({ system: 'Hello' })
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
})
