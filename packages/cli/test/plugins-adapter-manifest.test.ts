// An adapter on the registry, as `bosun plugins search` and `info` show it (found by hand with
// Bosun's own adapters on Verdaccio): `info` gave its config name as the package name
// (`config name  @bosun/adapter-openai`, where a config writes `"adapter": "openai"`) and its hooks
// as "(not declared)", and `search` showed "?" in HOOKS — as if something were unknown, where an
// adapter or a store taps no hooks at all. A local registry speaking the search API stands in.
import { execFile } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, tempDir } from './helpers.js'
import { localRegistry, type LocalRegistry } from './local-registry.js'

let server: LocalRegistry
let registry: string
let tarball: Buffer
let cleanup: () => Promise<void>

const ADAPTER = { name: 'bosun-adapter-echo', version: '1.0.0', description: 'Echoes the input', keywords: ['bosun-adapter'], license: 'MIT' }

beforeAll(async () => {
  requireBuild()
  // The adapter's tarball, packed by npm, for `add` to install.
  const made = await tempDir('bosun-adapter-echo-')
  cleanup = made.cleanup
  const source = join(made.dir, 'package')
  await mkdir(source)
  await writeFile(join(source, 'package.json'), JSON.stringify({ ...ADAPTER, type: 'module', main: 'index.js', bosun: { kind: 'adapter' } }))
  await writeFile(join(source, 'index.js'), 'export default {}\n')
  const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--pack-destination', made.dir], { cwd: source, env: { ...process.env, npm_config_cache: join(made.dir, 'npm-cache') } })
  tarball = await readFile(join(made.dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename))
  server = await localRegistry((url, base) => {
    if (url.pathname === `/${ADAPTER.name}/-/echo-1.0.0.tgz`) return tarball
    if (url.pathname === '/-/v1/search') return { objects: url.searchParams.get('text')!.includes('echo') ? [{ package: ADAPTER }] : [] }
    if (url.pathname !== `/${ADAPTER.name}`) return undefined
    const version = { ...ADAPTER, bosun: { kind: 'adapter' }, dist: { tarball: `${base}${ADAPTER.name}/-/echo-1.0.0.tgz` } }
    return { name: ADAPTER.name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': version } }
  })
  registry = server.url
})

afterAll(async () => {
  await server?.close()
  await cleanup?.()
})

describe.concurrent('an adapter on the registry', () => {
  it('info gives the name a config writes for it, and says an adapter taps no hooks', async ({ dir, expect }) => {
    const result = await bosun(['plugins', 'info', 'bosun-adapter-echo', '--registry', registry], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/\nconfig name {5}echo\n/)
    expect(result.stdout).toMatch(/\nhooks {11}- \(an adapter taps no hooks\)\n/)
    const json = await bosun(['plugins', 'info', 'bosun-adapter-echo', '--json', '--registry', registry], { cwd: dir })
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'bosun-adapter-echo', kind: 'adapter', configName: 'echo' })
  })

  it('add installs it and says what to set by that name', async ({ dir, expect }) => {
    const env = { npm_config_cache: join(dir, 'npm-cache'), npm_config_userconfig: join(dir, 'no-npmrc'), npm_config_audit: 'false', npm_config_fund: 'false' }
    const result = await bosun(['plugins', 'add', 'bosun-adapter-echo', '--yes', '--registry', registry], { cwd: dir, env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('Installed bosun-adapter-echo@1.0.0. It is an adapter: it replaces the config\'s model; set "model": { "adapter": "echo", "options": {…} } in your config.\n')
  })

  it('search shows "-" in HOOKS for it, not "?"', async ({ dir, expect }) => {
    const result = await bosun(['plugins', 'search', 'echo', '--registry', registry], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/\nbosun-adapter-echo +1\.0\.0 +adapter +- +- +Echoes the input\n/)
  })
})
