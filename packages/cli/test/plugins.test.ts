import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { configName, scanPlugins } from '../src/plugins-scan.js'
import { bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)


async function pkg(nodeModules: string, manifest: Record<string, unknown>): Promise<void> {
  const folder = join(nodeModules, manifest.name as string)
  await mkdir(folder, { recursive: true })
  await writeFile(join(folder, 'package.json'), JSON.stringify(manifest))
}

/** app/ (the cwd) with its own node_modules, inside a folder whose node_modules has more. */
async function layout(dir: string): Promise<string> {
  const app = join(dir, 'app')
  await pkg(join(app, 'node_modules'), { name: 'bosun-plugin-guard', version: '1.2.0', keywords: ['bosun-plugin'], bosun: { hooks: ['agent/pre-step'] } })
  await pkg(join(app, 'node_modules'), { name: '@acme/bosun-plugin-audit', version: '0.3.1', keywords: ['bosun', 'bosun-plugin'], bosun: { hooks: ['session/event', 'tool/result'] } })
  await pkg(join(app, 'node_modules'), { name: 'left-pad', version: '1.3.0', keywords: ['pad'] })
  await pkg(join(app, 'node_modules'), { name: '@acme/not-a-plugin', version: '1.0.0' })
  await pkg(join(dir, 'node_modules'), { name: '@bosun/plugin-retry', version: '0.1.0', keywords: ['bosun-plugin'] })
  // The same name further up is hidden by the nearer one.
  await pkg(join(dir, 'node_modules'), { name: 'bosun-plugin-guard', version: '0.0.1', keywords: ['bosun-plugin'], bosun: { hooks: [] } })
  await mkdir(join(app, 'node_modules', '.pnpm'), { recursive: true })
  return app
}

describe.concurrent('bosun plugins', () => {
  it('lists the packages with the bosun-plugin keyword from the cwd upward, scoped ones included, with versions and hooks', async ({ dir, expect }) => {
    const app = await layout(dir)
    const result = await bosun(['plugins'], { cwd: app })
    expect(result.code).toBe(0)
    expect(result.stdout).toMatchInlineSnapshot(`
      "PACKAGE                   VERSION  CONFIG NAME  HOOKS
      @acme/bosun-plugin-audit  0.3.1    @acme/audit  session/event, tool/result
      @bosun/plugin-retry       0.1.0    retry        (no "bosun.hooks" manifest)
      bosun-plugin-guard        1.2.0    guard        agent/pre-step
      "
    `)
    const json = (await bosun(['plugins', '--json'], { cwd: app })).stdout.trimEnd().split('\n').map((line) => JSON.parse(line))
    expect(json.map((plugin) => [plugin.name, plugin.version, plugin.hooks])).toEqual([
      ['@acme/bosun-plugin-audit', '0.3.1', ['session/event', 'tool/result']],
      ['@bosun/plugin-retry', '0.1.0', undefined],
      ['bosun-plugin-guard', '1.2.0', ['agent/pre-step']],
    ])
  })

  // It told a new user to `npm install @bosun/plugin-retry` — which bosun brings: a config names
  // "retry" with nothing installed. It names what comes with bosun, and where to find more.
  it('says so when none is installed, with the plugins bosun brings and where to find more', async ({ dir, expect }) => {
    const result = await bosun(['plugins'], { cwd: dir })
    expect(result).toMatchObject({ code: 0, stdout: '' })
    expect(result.stderr).toBe([
      'No Bosun plugins installed: no package with the keyword "bosun-plugin" in node_modules from here upward.',
      'Bundled with bosun, nothing to install (name one in the config, e.g. "plugins": ["retry"]): retry, rate-limit, step-limit, content-filter, compaction, subagents.',
      'More on the registry: bosun plugins search <words> (bosun plugins add installs one); or write your own: pnpm create bosun-plugin my-plugin',
      '',
    ].join('\n'))
    expect(result.stderr).not.toContain('npm install')
  })

  it('beside the installed ones, names the bundled plugins the project has no copy of', async ({ dir, expect }) => {
    const app = await layout(dir)
    const result = await bosun(['plugins'], { cwd: app })
    expect(result.stderr).toContain('Bundled with bosun, nothing to install (name one in the config, e.g. "plugins": ["rate-limit"]): rate-limit, step-limit, content-filter, compaction, subagents.\n')
  })
})

describe.concurrent('scanPlugins (exported for reuse)', () => {
  it('finds the same plugins from code, nearest first wins', async ({ dir, expect }) => {
    const app = await layout(dir)
    const plugins = await scanPlugins({ cwd: app })
    expect(plugins.map((plugin) => `${plugin.name}@${plugin.version}`)).toEqual(['@acme/bosun-plugin-audit@0.3.1', '@bosun/plugin-retry@0.1.0', 'bosun-plugin-guard@1.2.0'])
    expect(plugins[2]!.dir).toBe(join(app, 'node_modules', 'bosun-plugin-guard'))
  })

  it('maps package names to the short names a config uses', ({ expect }) => {
    expect(['@bosun/plugin-retry', 'bosun-plugin-guard', '@acme/bosun-plugin-audit', 'some-package'].map(configName)).toEqual(['retry', 'guard', '@acme/audit', 'some-package'])
  })
})
