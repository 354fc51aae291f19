// `bosun plugins add` runs npm, which runs the install scripts of what it installs with the
// environment it was given. Against a real registry (Verdaccio on 127.0.0.1), a plugin whose
// postinstall writes its whole environment to a file is added to a project whose config names
// its key variable: the script sees what npm needs (PATH, HOME, npm's settings, the registry
// token the project's .npmrc reads from the environment — without it the install fails) and none
// of the user's secrets.
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv, describe as described, run, succeed } from '../release/processes.js'
import { startRegistry, type Registry } from '../release/registry.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const BIN = join(root, 'packages/cli/dist/bin.js')
const SPY = '@private/bosun-plugin-env-spy'

/** The user's secrets, each a value no other variable holds. */
const SECRETS = {
  APP_LLM_KEY: 'secret-value-named-by-the-config',
  OPENAI_API_KEY: 'secret-value-openai',
  ANTHROPIC_API_KEY: 'secret-value-anthropic',
  GITHUB_TOKEN: 'secret-value-github',
  AWS_SECRET_ACCESS_KEY: 'secret-value-aws',
  DB_PASSWORD: 'secret-value-db',
}

let work: string
let registry: Registry
let env: Record<string, string>

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b tsconfig.build.json); the test drives the built CLI.`)
  work = await realpath(await mkdtemp(join(tmpdir(), 'bosun-install-env-')))
  // @private/* is served to a logged-in user only: the install needs the token.
  registry = await startRegistry(join(work, 'registry'), undefined, ['@private/*'])
  env = cleanEnv({
    npm_config_userconfig: registry.npmrc,
    npm_config_globalconfig: join(work, 'npm-globalconfig'),
    npm_config_cache: join(work, 'npm-cache'),
    NO_COLOR: '1',
  })
  const spy = join(work, 'env-spy')
  await mkdir(spy)
  const manifest = {
    name: SPY,
    version: '1.0.0',
    description: 'Writes the environment its install script gets to the installing project.',
    type: 'module',
    main: 'index.js',
    keywords: ['bosun-plugin'],
    bosun: { kind: 'plugin', hooks: [] },
    license: 'MIT',
    // INIT_CWD is the folder npm was run in: npm sets it for every script, whatever env it got.
    scripts: { postinstall: 'node spy.cjs' },
  }
  await writeFile(join(spy, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  await writeFile(join(spy, 'index.js'), "export default { kind: 'bosun-plugin', name: 'env-spy', setup() {} }\n")
  await writeFile(join(spy, 'spy.cjs'), "require('node:fs').writeFileSync(require('node:path').join(process.env.INIT_CWD, 'install-env.json'), JSON.stringify(process.env))\n")
  await succeed('npm', ['publish', '--ignore-scripts'], { cwd: spy, env })
}, 0)

afterAll(async () => {
  await registry?.close()
  if (work !== undefined) await rm(work, { recursive: true, force: true })
}, 120_000)

/** A project `name` (its package.json with `fields`) whose .npmrc reads the registry token from the environment, as CI sets it, and an empty user .npmrc beside it. */
async function project(name: string, fields: Record<string, unknown>): Promise<string> {
  const app = join(work, name)
  await mkdir(app)
  await writeFile(join(app, 'package.json'), `${JSON.stringify({ name, private: true, ...fields })}\n`)
  const host = registry.url.replace(/^http:/, '')
  await writeFile(join(app, '.npmrc'), `registry=${registry.url}\n${host}:_authToken=\${MARKET_TOKEN}\naudit=false\nfund=false\nupdate-notifier=false\n`)
  await writeFile(join(app, 'anonymous-npmrc'), '')
  return app
}

describe('bosun plugins add: the install scripts\' environment', { timeout: 0 }, () => {
  it('keeps what npm needs and withholds the config\'s key variable and the well-known secrets', async () => {
    const app = await project('app', {})
    const config = { model: { adapter: 'openai', options: { model: 'gpt-4o', baseURL: 'https://llm.example.com/v1', apiKeyEnv: 'APP_LLM_KEY' } } }
    await writeFile(join(app, 'bosun.config.json'), `${JSON.stringify(config, null, 2)}\n`)

    const userEnv: Record<string, string> = { ...env, ...SECRETS, npm_config_userconfig: join(app, 'anonymous-npmrc'), MARKET_TOKEN: registry.token, SPY_MARKER: 'an ordinary variable' }
    const args = [BIN, 'plugins', 'add', SPY, '--yes']
    const added = await run(process.execPath, args, { cwd: app, env: userEnv })
    expect(added.code, described('bosun', args, { cwd: app, env: userEnv }, added)).toBe(0)

    const seen = JSON.parse(await readFile(join(app, 'install-env.json'), 'utf8')) as Record<string, string>
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(seen[name], name).toBeUndefined()
      expect(Object.values(seen), name).not.toContain(value)
    }
    // What npm needs, and what is no secret, is there.
    expect(seen.MARKET_TOKEN).toBe(registry.token)
    expect(seen.PATH?.endsWith(`:${userEnv.PATH}`), seen.PATH).toBe(true) // npm puts the packages' bin folders first
    expect(seen.HOME).toBe(userEnv.HOME)
    expect(seen.SPY_MARKER).toBe('an ordinary variable')
    expect(seen.npm_config_cache).toBe(userEnv.npm_config_cache)

    // The user is told which variables were withheld (names only), and no value is printed.
    expect(added.stderr).toMatch(/withheld\s+ANTHROPIC_API_KEY, APP_LLM_KEY, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, GITHUB_TOKEN, OPENAI_API_KEY\s/)
    for (const value of [...Object.values(SECRETS), registry.token]) expect(added.stdout + added.stderr).not.toContain(value)
  })

  it('installs when the config cannot be read yet (a TS config importing the plugin), withholding the names its text gives and by the names\' patterns', async () => {
    const app = await project('app-ts', { type: 'module' })
    // Until the plugin is installed, this config cannot load (CONFIG_INVALID: the import is not found).
    const config = [
      `import '${SPY}'`,
      "export default { model: { adapter: 'openai', options: { model: 'gpt-4o', baseURL: 'https://llm.example.com/v1', apiKeyEnv: 'APP_LLM_KEY' } }, plugins: [] }",
      '',
    ].join('\n')
    await writeFile(join(app, 'bosun.config.ts'), config)

    const userEnv: Record<string, string> = { ...env, ...SECRETS, npm_config_userconfig: join(app, 'anonymous-npmrc'), MARKET_TOKEN: registry.token }
    const args = [BIN, 'plugins', 'add', SPY, '--yes']
    const added = await run(process.execPath, args, { cwd: app, env: userEnv })
    const story = described('bosun', args, { cwd: app, env: userEnv }, added)
    expect(added.stderr, story).toMatch(/config\s+bosun\.config\.ts could not be read\s+\(what is withheld: the names its text gives …Env options, and by the names' patterns; bosun config check says why\)\n/)
    expect(existsSync(join(app, 'install-env.json')), story).toBe(true)

    // The config's own variable (no credential in its name) is read from its text, not run; every name that says it holds a secret is withheld.
    const seen = JSON.parse(await readFile(join(app, 'install-env.json'), 'utf8')) as Record<string, string>
    for (const name of ['APP_LLM_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD']) expect(seen[name], name).toBeUndefined()
    expect(seen.MARKET_TOKEN).toBe(registry.token)
    expect(added.stderr).toMatch(/withheld\s+ANTHROPIC_API_KEY, APP_LLM_KEY, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, GITHUB_TOKEN, OPENAI_API_KEY\s/)
    for (const value of [...Object.values(SECRETS), registry.token]) expect(added.stdout + added.stderr).not.toContain(value)
    // Installed, the config loads: the entry is added to it and checked.
    expect(await readFile(join(app, 'bosun.config.ts'), 'utf8'), story).toContain('env-spy')
    expect(added.code, story).toBe(0)
  })
})
