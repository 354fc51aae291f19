// The marketplace against a real registry: Verdaccio on 127.0.0.1 (the release rehearsal's),
// plugins made with the create-bosun-plugin template and published with npm — one first-party
// (@bosun/), one third-party pre-step, one for a core that does not exist yet, one that is not a
// Bosun package, one on a scope only a logged-in user may read — then the built `bosun` driven as a
// user would from projects outside the workspace: search, info, add with npm (a TypeScript config)
// and pnpm (a YAML config), a run whose reject shows in `bosun log`, remove, and the errors. Every
// step is a real process run to its end; nothing waits for a time.
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv, describe as described, run, succeed, type Finished } from '../release/processes.js'
import { startRegistry, type Registry } from '../release/registry.js'
import { pnpmBinDir } from '../release/workspace.js'
import { publishFixture } from './fixtures.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const BIN = join(root, 'packages/cli/dist/bin.js')
const CORE_VERSION = (JSON.parse(await readFile(join(root, 'packages/core/package.json'), 'utf8')) as { version: string }).version

let work: string
let registry: Registry
/** What npm, pnpm and bosun see: the test registry (with its token, from the user config), caches of their own. */
let env: Record<string, string>

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b tsconfig.build.json); the test drives the built CLI.`)
  work = await realpath(await mkdtemp(join(tmpdir(), 'bosun-marketplace-')))
  registry = await startRegistry(join(work, 'registry'), undefined, ['@private/*'])
  const pnpmDir = await pnpmBinDir(root)
  env = cleanEnv({
    PATH: `${pnpmDir}:${process.env.PATH ?? ''}`,
    npm_config_userconfig: registry.npmrc,
    npm_config_globalconfig: join(work, 'npm-globalconfig'),
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_store_dir: join(work, 'pnpm-store'),
    NO_COLOR: '1',
  })
  // @bosun/core, which every plugin names as its peer, as this tree builds it.
  await succeed('npm', ['publish', '--ignore-scripts'], { cwd: join(root, 'packages/core'), env })
  const authors = join(work, 'authors')
  await mkdir(authors)
  await Promise.all([
    publishFixture(authors, 'fixture-guard', env, {
      scope: '@bosun',
      edit: (manifest) => {
        manifest.name = '@bosun/plugin-fixture-guard'
        manifest.description = 'First-party fixture: rejects input containing a configured word.'
      },
    }),
    publishFixture(authors, 'word-guard', env),
    publishFixture(authors, 'future-guard', env, {
      edit: (manifest) => {
        // A title-setting escape sequence: the CLI must show it, not send it to the terminal.
        manifest.description = 'A guard made for a Bosun that does not exist yet.\u001b]0;pwned\u0007'
        manifest.bosun.core = '^9.0.0'
        manifest.peerDependencies['@bosun/core'] = '^9.0.0'
      },
    }),
    publishFixture(authors, 'plain', env, {
      edit: (manifest) => {
        manifest.keywords = ['guard']
        delete manifest.bosun
      },
    }),
    publishFixture(authors, 'secret-guard', env, { scope: '@private' }),
    // An adapter whose schema requires an option (as openai's model, or the AI SDK bridge's model
    // object, which no -o can give): add installs it and says what to set, it writes no config.
    publishFixture(authors, 'words', env, {
      edit: (manifest) => {
        manifest.name = 'bosun-adapter-words'
        manifest.keywords = ['bosun-adapter']
        manifest.bosun.kind = 'adapter'
        delete manifest.bosun.hooks
      },
    }),
    publishFixture(authors, 'setup-throws', env, {
      // A plugin whose setup fails, as one missing its own configuration would.
      editSource: (file, source) => (file === 'index.ts' ? source.replace('const fold =', "throw new Error('setup-throws cannot start: no SETUP_THROWS_URL')\n    const fold =") : source),
    }),
  ])
  npmScenario = runNpmScenario()
  pnpmScenario = runPnpmScenario()
  npmScenario.catch(() => {}) // their tests report a failure
  pnpmScenario.catch(() => {})
}, 0)

afterAll(async () => {
  // Their processes end by themselves; the folder goes after them.
  await Promise.all([npmScenario?.catch(() => {}), pnpmScenario?.catch(() => {})])
  await registry?.close()
  if (work !== undefined) await rm(work, { recursive: true, force: true })
}, 120_000)

const TS_CONFIG = `// The npm project's agent: these comments and this layout must survive bosun plugins add.
export default {
  store: ['store-jsonl', { dir: '.bosun/sessions' }], // sessions on disk
  plugins: [
    'retry', // bundled with the CLI
  ],
}
`

/**
 * The npm project's story — add, a blocked run and its log, remove (twice), then a plugin for
 * another core installed by hand and named in a config — started once the plugins are published
 * and run beside the other tests; the tests below await it and check each step.
 */
let npmScenario: Promise<Awaited<ReturnType<typeof runNpmScenario>>>

async function runNpmScenario() {
  const app = await project('npm-app', { 'package.json': '{ "name": "npm-app", "private": true, "type": "module" }\n', 'bosun.config.ts': TS_CONFIG })
  const dependenciesOf = async () => (JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as { dependencies?: object }).dependencies ?? {}
  const added = await bosun(app, ['plugins', 'add', 'word-guard', '--option', 'words=password,secret', '--yes'])
  const afterAdd = await readFile(join(app, 'bosun.config.ts'), 'utf8')
  const dependencies = await dependenciesOf()
  const lockfile = existsSync(join(app, 'package-lock.json'))
  const blocked = await bosun(app, ['run', 'my password is hunter2'])
  const log = await bosun(app, ['log', /session (\S+)\s*$/.exec(blocked.stderr)?.[1] ?? 'none'])
  const removed = await bosun(app, ['plugins', 'remove', 'word-guard'])
  const afterRemove = await readFile(join(app, 'bosun.config.ts'), 'utf8')
  const dependenciesAfterRemove = await dependenciesOf()
  const installedAfterRemove = existsSync(join(app, 'node_modules/bosun-plugin-word-guard'))
  const removedAgain = await bosun(app, ['plugins', 'remove', 'word-guard'])
  // A plugin whose setup throws: added, the check fails, and the way out it names is taken.
  const addedThrowing = await bosun(app, ['plugins', 'add', 'setup-throws', '-o', 'words=x', '--yes'])
  const configWithThrowing = await readFile(join(app, 'bosun.config.ts'), 'utf8')
  // Another plugin added while that one still fails: add must not say the new one broke the config.
  const addedBeside = await bosun(app, ['plugins', 'add', 'word-guard', '-o', 'words=x', '--yes'])
  await bosun(app, ['plugins', 'remove', 'word-guard'])
  const removedThrowing = await bosun(app, ['plugins', 'remove', 'setup-throws'])
  const afterRemoveThrowing = await readFile(join(app, 'bosun.config.ts'), 'utf8')
  // npm refuses a peer range no published core meets; --legacy-peer-deps installs it anyway, as a user might.
  await succeed('npm', ['install', 'bosun-plugin-future-guard', '--legacy-peer-deps'], { cwd: app, env })
  await writeFile(join(app, 'future.json'), '{ "plugins": ["future-guard"] }\n')
  const refused = await bosun(app, ['run', '--config', 'future.json', 'hello'])
  return { app, added, afterAdd, dependencies, lockfile, blocked, log, removed, afterRemove, dependenciesAfterRemove, installedAfterRemove, removedAgain, addedThrowing, configWithThrowing, addedBeside, removedThrowing, afterRemoveThrowing, refused }
}

const PNPM_CONFIG = `# The pnpm project's agent
store: [store-jsonl, { dir: .bosun/sessions }]
plugins:
  - retry   # bundled with the CLI
`

/**
 * The pnpm project's whole story — add, a blocked run, its log, remove — started once the
 * plugins are published and run beside the other tests (it mostly waits on installs); its test
 * awaits it and checks each step.
 */
let pnpmScenario: Promise<Awaited<ReturnType<typeof runPnpmScenario>>>

async function runPnpmScenario() {
  const app = await project('pnpm-app', {
    'package.json': '{ "name": "pnpm-app", "private": true, "packageManager": "pnpm@12.4.2" }\n',
    '.npmrc': `registry=${registry.url}\n`,
    'bosun.config.yaml': PNPM_CONFIG,
  })
  const added = await bosun(app, ['plugins', 'add', 'fixture-guard', '-o', 'words=secret', '--yes'])
  const afterAdd = await readFile(join(app, 'bosun.config.yaml'), 'utf8')
  const lockfile = existsSync(join(app, 'pnpm-lock.yaml'))
  const blocked = await bosun(app, ['run', 'the secret is out'])
  const log = await bosun(app, ['log', /session (\S+)\s*$/.exec(blocked.stderr)?.[1] ?? 'none'])
  const removed = await bosun(app, ['plugins', 'remove', 'fixture-guard'])
  const afterRemove = await readFile(join(app, 'bosun.config.yaml'), 'utf8')
  const dependencies = (JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as { dependencies?: object }).dependencies ?? {}
  return { app, added, afterAdd, lockfile, blocked, log, removed, afterRemove, dependencies }
}

const bosun = (cwd: string, args: string[], extraEnv: Record<string, string> = {}) => run(process.execPath, [BIN, ...args], { cwd, env: { ...env, ...extraEnv } })

function ok(result: Finished, args: string[], cwd: string): Finished {
  expect(result.code, described('bosun', args, { cwd, env }, result)).toBe(0)
  return result
}

async function project(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(work, name)
  await mkdir(dir)
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text)
  return dir
}

describe.sequential('bosun plugins against a real registry', { timeout: 0 }, () => {
  let anywhere: string
  beforeAll(async () => {
    anywhere = await project('anywhere', { 'package.json': '{ "name": "anywhere", "private": true }\n' })
  })

  it('search lists the Bosun packages by keyword, with kind, hooks and "first-party" for @bosun/', async () => {
    const table = ok(await bosun(anywhere, ['plugins', 'search']), ['plugins', 'search'], anywhere)
    const lines = table.stdout.split('\n')
    expect(lines[0]).toMatch(/^PACKAGE\s+VERSION\s+KIND\s+HOOKS\s+WEEKLY\s+SOURCE\s+DESCRIPTION$/)
    expect(lines[1]).toMatch(/^@bosun\/plugin-fixture-guard\s+1\.0\.0\s+plugin\s+agent\/pre-step\s+-\s+first-party\s+First-party fixture/)
    expect(table.stdout).toMatch(/\nbosun-plugin-word-guard\s+1\.0\.0\s+plugin\s+agent\/pre-step\s+-\s+A Bosun pre-step plugin/)
    expect(table.stdout).toMatch(/\nbosun-plugin-future-guard\s+1\.0\.0\s+plugin\s+agent\/pre-step\s+-\s+A guard made for a Bosun that does not exist yet\.␛\]0;pwned␇\n/)
    expect(table.stdout).not.toContain('\u001b')
    expect(table.stdout).not.toContain('bosun-plugin-plain') // found by its name, but it has no Bosun keyword
    expect(table.stdout.match(/first-party/g)).toHaveLength(1)

    const json = ok(await bosun(anywhere, ['plugins', 'search', 'future', '--json']), ['plugins', 'search', 'future'], anywhere)
    expect(json.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual([
      { name: 'bosun-plugin-future-guard', version: '1.0.0', description: 'A guard made for a Bosun that does not exist yet.\u001b]0;pwned\u0007', kind: 'plugin', hooks: ['agent/pre-step'], firstParty: false },
    ])
  })

  it('info reads the manifest and the options schema from the registry without installing', async () => {
    const info = ok(await bosun(anywhere, ['plugins', 'info', 'word-guard']), ['plugins', 'info', 'word-guard'], anywhere)
    expect(info.stdout).toContain('bosun-plugin-word-guard 1.0.0  third-party')
    expect(info.stdout).toMatch(/kind\s+plugin\n/)
    expect(info.stdout).toMatch(/config name\s+word-guard\n/)
    expect(info.stdout).toMatch(/hooks\s+agent\/pre-step\n/)
    expect(info.stdout).toContain(`@bosun/core     ^${CORE_VERSION}  ✓ the running @bosun/core ${CORE_VERSION} satisfies it`)
    expect(info.stdout).toMatch(/license\s+MIT\n/)
    expect(info.stdout).toMatch(/install scripts\s+none\n/)
    expect(info.stdout).toMatch(/options\s+from \.\/schema\.json; \* required\n\s+KEY\s+TYPE\s+DEFAULT\s+DESCRIPTION\n\s+words\*\s+string\[\]\s+-\s+A step is rejected when one of its messages contains one of these words\.\n\s+ignoreCase\s+boolean\s+true\s+Match regardless of case\./)
    expect(info.stderr).toContain('Add it: bosun plugins add bosun-plugin-word-guard --option words=…')
    expect(existsSync(join(anywhere, 'node_modules'))).toBe(false)

    const future = ok(await bosun(anywhere, ['plugins', 'info', 'bosun-plugin-future-guard']), ['plugins', 'info'], anywhere)
    expect(future.stdout).toContain(`^9.0.0  ✗ the running @bosun/core is ${CORE_VERSION}: it will refuse to load`)
    expect(future.stdout).toContain('does not exist yet.␛]0;pwned␇')
    expect(future.stdout).not.toContain('\u001b')
  })

  it('an unknown package, a package that is not Bosun\'s, a registry that is down: each a coded error', async () => {
    const unknown = await bosun(anywhere, ['plugins', 'info', 'no-such-guard'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('error PACKAGE_NOT_FOUND: no package "@bosun/plugin-no-such-guard" or "bosun-plugin-no-such-guard" or "no-such-guard" on the registry')

    const plain = await bosun(anywhere, ['plugins', 'info', 'bosun-plugin-plain'])
    expect(plain.code).toBe(1)
    expect(plain.stderr).toContain('error NOT_A_BOSUN_PACKAGE: bosun-plugin-plain@1.0.0 is not a Bosun package')

    const closed = REFUSED_PORT
    const down = await bosun(anywhere, ['plugins', 'search', '--registry', `http://127.0.0.1:${closed}/`])
    expect(down.code).toBe(1)
    expect(down.stderr).toContain(`error REGISTRY_UNREACHABLE: cannot reach the registry at http://127.0.0.1:${closed}/ (ECONNREFUSED)`)
  })

  it('a registry that needs a login: refused without the token, read with the .npmrc token, which is never printed', async () => {
    const anonymous = join(work, 'anonymous-npmrc')
    await writeFile(anonymous, `registry=${registry.url}\n`)
    const refused = await bosun(anywhere, ['plugins', 'info', '@private/bosun-plugin-secret-guard'], { npm_config_userconfig: anonymous })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/error REGISTRY_AUTH_REQUIRED: http:\/\/127\.0\.0\.1:\d+\/ refused @private\/bosun-plugin-secret-guard \((401|403)\): it needs a login/)

    // The token comes from the environment through the project's .npmrc, as CI sets it.
    const host = registry.url.replace(/^http:/, '')
    const secret = await project('secret', { 'package.json': '{ "name": "secret", "private": true }\n', '.npmrc': `${host}:_authToken=\${MARKET_TOKEN}\n` })
    const read = ok(await bosun(secret, ['plugins', 'info', '@private/bosun-plugin-secret-guard', '--json'], { npm_config_userconfig: anonymous, MARKET_TOKEN: registry.token }), ['plugins', 'info'], secret)
    expect(JSON.parse(read.stdout)).toMatchObject({ name: '@private/bosun-plugin-secret-guard', kind: 'plugin', hooks: ['agent/pre-step'] })
    expect(`${read.stdout}${read.stderr}${refused.stderr}`).not.toContain(registry.token)
  })

  it('search also asks each scoped registry, and takes a package only from the registry that serves its scope', async () => {
    // The default registry here knows nothing; @private's is the test registry, with its token.
    const empty = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"objects":[]}'))
    await new Promise<void>((done) => empty.listen(0, '127.0.0.1', done))
    try {
      const host = registry.url.replace(/^http:/, '')
      const dir = await project('scoped', {
        'package.json': '{ "name": "scoped", "private": true }\n',
        '.npmrc': `registry=http://127.0.0.1:${(empty.address() as AddressInfo).port}/\n@private:registry=${registry.url}\n${host}:_authToken=\${MARKET_TOKEN}\n`,
      })
      const anonymous = join(work, 'scoped-user-npmrc')
      await writeFile(anonymous, '')
      const searched = ok(await bosun(dir, ['plugins', 'search', 'guard', '--json'], { npm_config_userconfig: anonymous, MARKET_TOKEN: registry.token }), ['plugins', 'search'], dir)
      // The test registry also answers with unscoped packages: those are the default registry's to serve, so they are left out.
      expect(searched.stdout.trim().split('\n').map((line) => JSON.parse(line).name)).toEqual(['@private/bosun-plugin-secret-guard'])
    } finally {
      await new Promise((done) => empty.close(done))
    }
  })

  it('a redirect is followed without the token', async () => {
    const seen: { server: string; headers: IncomingHttpHeaders }[] = []
    const target = createServer((request, response) => {
      seen.push({ server: 'target', headers: request.headers })
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"objects":[]}')
    })
    const redirector = createServer((request, response) => {
      seen.push({ server: 'redirector', headers: request.headers })
      response.writeHead(302, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}${request.url}` }).end()
    })
    await Promise.all([new Promise<void>((done) => target.listen(0, '127.0.0.1', done)), new Promise<void>((done) => redirector.listen(0, '127.0.0.1', done))])
    try {
      const port = (redirector.address() as AddressInfo).port
      const dir = await project('redirected', { 'package.json': '{ "name": "redirected", "private": true }\n', '.npmrc': `//127.0.0.1:${port}/:_authToken=redirect-FAKE-TOKEN-1234\n` })
      const searched = ok(await bosun(dir, ['plugins', 'search', '--registry', `http://127.0.0.1:${port}/`]), ['plugins', 'search'], dir)
      expect(searched.stderr).toContain('No Bosun package on')
      expect(seen.filter((hit) => hit.server === 'redirector').every((hit) => hit.headers.authorization === 'Bearer redirect-FAKE-TOKEN-1234')).toBe(true)
      expect(seen.filter((hit) => hit.server === 'target').length).toBeGreaterThan(0)
      expect(seen.filter((hit) => hit.server === 'target').some((hit) => hit.headers.authorization !== undefined)).toBe(false)
    } finally {
      await Promise.all([new Promise((done) => target.close(done)), new Promise((done) => redirector.close(done))])
    }
  })

  describe.sequential('an npm project with a TypeScript config', () => {
    let checks: string
    beforeAll(async () => {
      checks = await project('npm-checks', { 'package.json': '{ "name": "npm-checks", "private": true, "type": "module" }\n', 'bosun.config.ts': TS_CONFIG })
    })

    it('checks options against the schema before anything is installed: the key and the expected type are named', async () => {
      const bad = await bosun(checks, ['plugins', 'add', 'word-guard', '--option', 'ignoreCase=maybe', '--yes'])
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain('error OPTION_INVALID: option "ignoreCase" expects a boolean (true or false), got "maybe".')
      const missing = await bosun(checks, ['plugins', 'add', 'word-guard', '--option', 'ignoreCase=false', '--yes'])
      expect(missing.code).toBe(1)
      expect(missing.stderr).toMatch(/error OPTION_INVALID: Invalid options for bosun-plugin-word-guard:\n\s+- \$\.words/)
      const unknownKey = await bosun(checks, ['plugins', 'add', 'word-guard', '--option', 'colour=red', '--yes'])
      expect(unknownKey.code).toBe(1)
      expect(unknownKey.stderr).toContain('error OPTION_INVALID: Invalid options for bosun-plugin-word-guard:')
      expect(unknownKey.stderr).toContain('- $.colour: unknown key "colour"; the known keys are words, ignoreCase.')
      // A typo of an option's name: the config loader's "did you mean" (bbb46ef).
      const typo = await bosun(checks, ['plugins', 'add', 'word-guard', '--option', 'word=password', '--yes'])
      expect(typo.code).toBe(1)
      expect(typo.stderr).toContain('- $.word: unknown key "word" — did you mean "words"?')
      expect(existsSync(join(checks, 'node_modules'))).toBe(false)
      expect(await readFile(join(checks, 'bosun.config.ts'), 'utf8')).toBe(TS_CONFIG)
    })

    it('shows what it will install and asks; no answer installs nothing', async () => {
      const unanswered = await bosun(checks, ['plugins', 'add', 'word-guard', '-o', 'words=password'])
      expect(unanswered.code).toBe(1)
      expect(unanswered.stderr).toMatch(/bosun-plugin-word-guard 1\.0\.0\s+third-party/)
      expect(unanswered.stderr).toMatch(/dependencies\s+0\n/)
      expect(unanswered.stderr).toMatch(/install scripts\s+none\n/)
      expect(unanswered.stderr).toMatch(/license\s+MIT\n/)
      expect(unanswered.stderr).toMatch(/install with\s+npm install bosun-plugin-word-guard@1\.0\.0\s+\(no lockfile, in \.\)/)
      expect(unanswered.stderr).toContain('Install bosun-plugin-word-guard@1.0.0 and add it to the config? [y/N]')
      expect(unanswered.stderr).toContain('error NOT_CONFIRMED')
      expect(unanswered.stderr).not.toContain('already') // the config names retry only
      expect(existsSync(join(checks, 'node_modules'))).toBe(false)
    })

    it('adding a plugin the config already names says the old entry keeps running beside the new one', async () => {
      await writeFile(join(checks, 'twice.json'), '{ "plugins": ["retry", ["word-guard", { "words": ["a"] }]] }\n')
      const again = await bosun(checks, ['--config', 'twice.json', 'plugins', 'add', 'word-guard', '-o', 'words=b'])
      expect(again.code).toBe(1)
      expect(again.stderr).toMatch(
        /already\s+the config's plugins name bosun-plugin-word-guard once: this adds another instance beside it, and it keeps running with its options\. To change options, edit the entry instead \(or bosun plugins remove word-guard first\)\.\n/,
      )
      expect(again.stderr).toContain('error NOT_CONFIRMED')
      expect(existsSync(join(checks, 'node_modules'))).toBe(false)
    })

    it('adding a newer version of a plugin the config runs says it replaces the installed one for every entry, and how to update without a second entry', async () => {
      // 0.9.0 stands installed (as an earlier add left it) and the config runs it; the registry has 1.0.0.
      const older = await project('npm-upgrade', {
        'package.json': '{ "name": "npm-upgrade", "private": true, "dependencies": { "bosun-plugin-word-guard": "^0.9.0" } }\n',
        'bosun.config.json': '{ "plugins": [["word-guard", { "words": ["a"] }]] }\n',
      })
      await mkdir(join(older, 'node_modules/bosun-plugin-word-guard'), { recursive: true })
      await writeFile(join(older, 'node_modules/bosun-plugin-word-guard/package.json'), '{ "name": "bosun-plugin-word-guard", "version": "0.9.0", "keywords": ["bosun-plugin"] }\n')
      const again = await bosun(older, ['plugins', 'add', 'word-guard', '-o', 'words=a'])
      expect(again.code).toBe(1)
      expect(again.stderr).toMatch(
        /installed\s+bosun-plugin-word-guard 0\.9\.0, which the config's entry runs: this installs 1\.0\.0 in its place, for every entry\. To change only the version, without a second entry: npm install bosun-plugin-word-guard@1\.0\.0\n/,
      )
      expect(again.stderr).toContain('error NOT_CONFIRMED')
      // Not in the config: only the replacement is said.
      await writeFile(join(older, 'bosun.config.json'), '{ "plugins": [] }\n')
      const fresh = await bosun(older, ['plugins', 'add', 'word-guard', '-o', 'words=a'])
      expect(fresh.stderr).toMatch(/installed\s+bosun-plugin-word-guard 0\.9\.0: this installs 1\.0\.0 in its place\.\n/)
      expect(fresh.stderr).not.toContain('already')
    })

    it('an adapter whose options are required installs without them and says what to set; options given are checked one by one and shown', async () => {
      const app = await project('adapter-app', { 'package.json': '{ "name": "adapter-app", "private": true, "type": "module" }\n', 'bosun.config.ts': TS_CONFIG })
      const bad = await bosun(app, ['plugins', 'add', 'bosun-adapter-words', '-o', 'ignoreCase=maybe', '--yes'])
      expect(bad.stderr).toContain('error OPTION_INVALID: option "ignoreCase" expects a boolean')
      expect(existsSync(join(app, 'node_modules'))).toBe(false)
      const bare = await bosun(app, ['plugins', 'add', 'bosun-adapter-words', '--yes'])
      expect(bare.code, bare.stderr).toBe(0)
      expect(bare.stderr).toContain('Installed bosun-adapter-words@1.0.0. It is an adapter: it replaces the config\'s model; set "model": { "adapter": "words", "options": {…} } in your config. Its options (some are required): bosun plugins info bosun-adapter-words.')
      // Checked one by one, not as a whole: the required words are left for the config.
      const given = await bosun(app, ['plugins', 'add', 'bosun-adapter-words', '-o', 'ignoreCase=true', '--yes'])
      expect(given.code, given.stderr).toBe(0)
      expect(given.stderr).toContain('set "model": { "adapter": "words", "options": {"ignoreCase":true} } in your config.')
      expect(await readFile(join(app, 'bosun.config.ts'), 'utf8')).toBe(TS_CONFIG)
    })

    it('refuses a plugin made for another core before installing, naming both versions', async () => {
      const future = await bosun(checks, ['plugins', 'add', 'future-guard', '--yes'])
      expect(future.code).toBe(1)
      expect(future.stderr).toContain(`error INCOMPATIBLE_CORE: bosun-plugin-future-guard@1.0.0 supports @bosun/core ^9.0.0, but this bosun runs @bosun/core ${CORE_VERSION}.`)
      expect(existsSync(join(checks, 'node_modules'))).toBe(false)
    })

    it('add installs with npm, edits the TS config keeping its comments, checks it; the plugin rejects in a run', async () => {
      const { app, added, afterAdd, dependencies, lockfile, blocked, log } = await npmScenario
      ok(added, ['plugins', 'add'], app)
      expect(afterAdd).toBe(TS_CONFIG.replace("    'retry', // bundled with the CLI\n", "    'retry', // bundled with the CLI\n    ['word-guard', { words: ['password', 'secret'] }],\n"))
      expect(added.stderr).toContain(`Added ["word-guard",{"words":["password","secret"]}] to "plugins" in bosun.config.ts.`)
      expect(added.stdout).toMatch(/2\. word-guard\s+bosun-plugin-word-guard 1\.0\.0/)
      expect(added.stdout).toContain('✓ the config is valid')
      expect(dependencies).toEqual({ 'bosun-plugin-word-guard': '^1.0.0' })
      expect(lockfile).toBe(true)
      expect(blocked.code, blocked.stderr).toBe(3)
      expect(ok(log, ['log'], app).stdout).toContain('blocked by word-guard')
      expect(log.stdout).toMatch(/"reason":"blocked-word","word":"password"/)
    })

    it('remove takes the entry out of the config (as it was) and uninstalls with npm', async () => {
      const { app, removed, afterRemove, dependenciesAfterRemove, installedAfterRemove, removedAgain } = await npmScenario
      ok(removed, ['plugins', 'remove'], app)
      expect(afterRemove).toBe(TS_CONFIG)
      expect(dependenciesAfterRemove).toEqual({})
      expect(installedAfterRemove).toBe(false)
      expect(removedAgain.code).toBe(1)
      expect(removedAgain.stderr).toContain('error NOT_ADDED')
    })

    it('a plugin whose setup throws: add says it is installed and in the config, and how to take it out again', async () => {
      const { app, addedThrowing, configWithThrowing, addedBeside, removedThrowing, afterRemoveThrowing } = await npmScenario
      expect(addedThrowing.code, addedThrowing.stderr).toBe(1)
      expect(configWithThrowing, addedThrowing.stderr).toContain("['setup-throws', { words: ['x'] }],")
      const setupFailed = /error PLUGIN_SETUP_FAILED: Plugin "setup-throws" failed in setup: setup-throws cannot start: no SETUP_THROWS_URL\. In \S+bosun\.config\.ts: \$\.plugins\[\d+\] \(plugin "setup-throws"\)\.\n$/
      expect(addedThrowing.stderr).toContain(
        'bosun-plugin-setup-throws@1.0.0 is installed and in bosun.config.ts, but the config does not load (the error below says why): fix what it names, or take setup-throws out again with: bosun plugins remove setup-throws\n',
      )
      expect(addedThrowing.stderr).toMatch(setupFailed)
      // Added while setup-throws still fails: the line names no culprit, the error names setup-throws.
      expect(addedBeside.code, addedBeside.stderr).toBe(1)
      expect(addedBeside.stderr).toContain(
        'bosun-plugin-word-guard@1.0.0 is installed and in bosun.config.ts, but the config does not load (the error below says why): fix what it names, or take word-guard out again with: bosun plugins remove word-guard\n',
      )
      expect(addedBeside.stderr).toMatch(setupFailed)
      ok(removedThrowing, ['plugins', 'remove'], app)
      expect(afterRemoveThrowing).toBe(TS_CONFIG)
    })

    it('the loader refuses a plugin installed for another core, naming both versions', async () => {
      const { refused } = await npmScenario
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`bosun-plugin-future-guard 1.0.0 supports @bosun/core ^9.0.0, but the running @bosun/core is ${CORE_VERSION}.`)
    })
  })

  it('a pnpm project with a YAML config: add edits the YAML in place, the run is blocked, remove restores it', async () => {
    const { app, added, afterAdd, lockfile, blocked, log, removed, afterRemove, dependencies } = await pnpmScenario
    ok(added, ['plugins', 'add'], app)
    expect(added.stderr).toMatch(/install with\s+pnpm add @bosun\/plugin-fixture-guard@1\.0\.0\s+\(packageManager in package\.json, in \.\)/)
    expect(afterAdd).toBe(`${PNPM_CONFIG}  - ["fixture-guard",{"words":["secret"]}]\n`)
    expect(added.stdout).toContain('✓ the config is valid')
    expect(lockfile).toBe(true)
    expect(blocked.code, blocked.stderr).toBe(3)
    expect(ok(log, ['log'], app).stdout).toContain('blocked by fixture-guard')
    ok(removed, ['plugins', 'remove'], app)
    expect(afterRemove).toBe(PNPM_CONFIG)
    expect(dependencies).toEqual({})
  })
})

/**
 * A port nothing can listen on — binding port 0 asks the system for any free port — so a
 * connection to it is refused (ECONNREFUSED). A port a server got and closed again could be taken
 * by another process before bosun connects to it.
 */
const REFUSED_PORT = 0
