import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { installEnvFor, packageManagerEnv } from './install-env.js'

const USER_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/u',
  LANG: 'C.UTF-8',
  TMPDIR: '/tmp',
  SSH_AUTH_SOCK: '/run/ssh.sock',
  HTTPS_PROXY: 'http://proxy.example:3128',
  NO_PROXY: 'localhost',
  npm_config_registry: 'https://npm.acme.dev/',
  'npm_config_//npm.acme.dev/:_authToken': 'npm-own-token',
  NPM_TOKEN: 'npm-token',
  YARN_NPM_AUTH_TOKEN: 'yarn-token',
  OPENAI_API_KEY: 'sk-openai',
  ANTHROPIC_API_KEY: 'sk-ant',
  GROQ_API_KEY: 'gsk',
  GITHUB_TOKEN: 'ghp',
  AWS_ACCESS_KEY_ID: 'AKIA',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  STRIPE_SECRET: 'stripe',
  PGPASSWORD: 'pg',
  db_password_file: '/run/pw',
  MY_LLM_KEY: 'named-by-config',
  COMPANY_DB: 'postgres://u:pw@db/x',
  EDITOR: 'vi',
}

describe('packageManagerEnv', () => {
  it('withholds the config\'s variables, the provider keys and credential-named ones; keeps what npm needs', () => {
    const { env, withheld } = packageManagerEnv(USER_ENV, { configVariables: ['MY_LLM_KEY', 'COMPANY_DB'], npmrcVariables: [] })
    expect(withheld).toEqual([
      'ANTHROPIC_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'COMPANY_DB', 'GITHUB_TOKEN', 'GROQ_API_KEY', 'MY_LLM_KEY', 'NPM_TOKEN', 'OPENAI_API_KEY',
      'PGPASSWORD', 'STRIPE_SECRET', 'db_password_file',
    ])
    expect(Object.keys(env).sort()).toEqual([
      'EDITOR', 'HOME', 'HTTPS_PROXY', 'LANG', 'NO_PROXY', 'PATH', 'SSH_AUTH_SOCK', 'TMPDIR', 'YARN_NPM_AUTH_TOKEN',
      'npm_config_//npm.acme.dev/:_authToken', 'npm_config_registry',
    ])
    expect(env.PATH).toBe(USER_ENV.PATH)
  })

  it('withholds the registry tokens CI sets (NPM_TOKEN, NODE_AUTH_TOKEN) unless an .npmrc reads them: npm reads them only so', () => {
    // A publish token is what a malicious postinstall wants most: npm itself never reads these
    // variables, only an .npmrc's ${NPM_TOKEN} — so they are passed only where one names them.
    const env = { ...USER_ENV, NODE_AUTH_TOKEN: 'node-auth' }
    const none = packageManagerEnv(env, { configVariables: [], npmrcVariables: [] })
    expect(none.env).not.toHaveProperty('NPM_TOKEN')
    expect(none.env).not.toHaveProperty('NODE_AUTH_TOKEN')
    expect(none.withheld).toEqual(expect.arrayContaining(['NPM_TOKEN', 'NODE_AUTH_TOKEN']))
    const read = packageManagerEnv(env, { configVariables: [], npmrcVariables: ['NPM_TOKEN', 'NODE_AUTH_TOKEN'] })
    expect({ npm: read.env.NPM_TOKEN, node: read.env.NODE_AUTH_TOKEN }).toEqual({ npm: 'npm-token', node: 'node-auth' })
  })

  it('keeps a variable an .npmrc reads, even one that looks like a secret or that the config names too', () => {
    const { env, withheld } = packageManagerEnv(USER_ENV, { configVariables: ['GITHUB_TOKEN'], npmrcVariables: ['GITHUB_TOKEN'] })
    expect(env.GITHUB_TOKEN).toBe('ghp')
    expect(withheld).not.toContain('GITHUB_TOKEN')
  })

  it('installEnvFor: the names from the config\'s …Env options and from the project\'s .npmrc', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'bosun-install-env-')))
    try {
      await writeFile(join(dir, 'package.json'), '{}')
      await writeFile(join(dir, '.npmrc'), '//npm.acme.dev/:_authToken=${ACME_REGISTRY_TOKEN}\n')
      const config = { model: { adapter: 'openai', options: { apiKeyEnv: 'MY_LLM_KEY' } }, store: ['store-postgres', { urlEnv: 'COMPANY_DB' }] }
      const env = { ...USER_ENV, npm_config_userconfig: join(dir, 'none'), ACME_REGISTRY_TOKEN: 'acme' }
      const made = installEnvFor(dir, env, config)
      expect(made.withheld).toContain('MY_LLM_KEY')
      expect(made.withheld).toContain('COMPANY_DB')
      expect(made.env.ACME_REGISTRY_TOKEN).toBe('acme')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
