// The published packages' manifests, checked in a second: what docs/releasing.md promises about
// each tarball, the fixed version group, and the ranges between the packages. The rehearsal
// (rehearsal.test.ts) proves the same things by publishing and installing; this says which field
// is wrong, at once.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { FIRST_PARTY_PACKAGES } from '../../packages/core/src/config/not-found.js'
import { dependencyRanges } from '../../packages/create-bosun-plugin/src/versions.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

interface Manifest {
  name: string
  version: string
  private?: boolean
  [field: string]: any
}

const packages: { dir: string; manifest: Manifest }[] = ['packages', 'packages/adapters', 'packages/plugins'].flatMap((parent) =>
  readdirSync(join(root, parent))
    .map((name) => join(root, parent, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest })),
)
const published = packages.filter(({ manifest }) => manifest.private !== true)
const names = new Set(published.map(({ manifest }) => manifest.name))
const changesets = JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8')) as { fixed: string[][] }
const version = published.find(({ manifest }) => manifest.name === '@bosun/core')!.manifest.version
const repository = (JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8')) as Manifest).repository.url as string

describe('the published packages', () => {
  it('are every package under packages/, released together as one changesets fixed group', () => {
    expect(changesets.fixed).toHaveLength(1)
    expect([...changesets.fixed[0]!].sort()).toEqual([...names].sort())
    for (const { manifest } of published) expect(manifest.version, manifest.name).toBe(version)
  })

  it.each(published.map(({ dir, manifest }) => [manifest.name, dir, manifest] as const))('%s: license, repository, engines, keywords, README', (name, dir, manifest) => {
    expect(manifest.license).toBe('MIT')
    expect(manifest.repository).toEqual({ type: 'git', url: repository, directory: relative(root, dir) })
    expect(manifest.engines).toEqual({ node: '>=20' })
    expect(manifest.type).toBe('module')
    expect(manifest.sideEffects).toBe(false)
    expect(manifest.keywords, 'keywords').toEqual(expect.arrayContaining(['bosun']))
    for (const file of ['README.md', 'LICENSE']) expect(existsSync(join(dir, file)), file).toBe(true)
    if (name.startsWith('@')) expect(manifest.publishConfig).toEqual({ access: 'public' })
  })

  it.each(published.map(({ dir, manifest }) => [manifest.name, dir, manifest] as const))('%s: files, types and exports', (_name, dir, manifest) => {
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', '!dist/.tsbuildinfo', '!dist/**/*.map', 'CHANGELOG.md']))
    expect(manifest.types).toBe('./dist/index.d.ts')
    expect(manifest.exports['./package.json']).toBe('./package.json')
    for (const [entry, target] of Object.entries(manifest.exports as Record<string, unknown>)) {
      if (typeof target === 'string') continue // ./package.json, ./schema.json
      const conditions = target as Record<string, string>
      // bosun-source first (the workspace resolves sources through it), then types, then import;
      // for what a plugin imports (the core, the test kit), default, the same file, last: require()
      // of an ES module (Node 20.19+) from a CommonJS plugin. Not for the packages a config names:
      // require.resolve would then also find them on NODE_PATH, where config resolution (jiti's
      // rules, node-resolve.ts) finds only what can be required.
      const requirable = ['@bosun/core', '@bosun/testkit'].includes(manifest.name as string)
      expect(Object.keys(conditions), entry).toEqual(['bosun-source', 'types', 'import', ...(requirable ? ['default'] : [])])
      if (requirable) expect(conditions.default, entry).toBe(conditions.import)
      expect(existsSync(join(dir, conditions['bosun-source']!)), `${entry} bosun-source`).toBe(true)
      expect(conditions.types, entry).toMatch(/^\.\/dist\/.+\.d\.ts$/)
      expect(conditions.import, entry).toBe(conditions.types!.replace(/\.d\.ts$/, '.js'))
    }
  })

  it('depend on each other by workspace:^ (a caret range when packed), and peer on ^<the version>', () => {
    const problems: string[] = []
    for (const { manifest } of published) {
      for (const [dependency, range] of Object.entries((manifest.dependencies ?? {}) as Record<string, string>)) {
        if (names.has(dependency) && range !== 'workspace:^') problems.push(`${manifest.name} dependencies.${dependency} is ${range}, not workspace:^`)
      }
      for (const [dependency, range] of Object.entries((manifest.peerDependencies ?? {}) as Record<string, string>)) {
        if (names.has(dependency) && range !== `^${version}`) {
          problems.push(`${manifest.name} peerDependencies.${dependency} is ${range}, not ^${version}: run node scripts/sync-peer-ranges.mjs (pnpm version-packages runs it)`)
        }
      }
      const core = (manifest.bosun as { core?: string } | undefined)?.core
      if (core !== undefined && core !== `^${version}`) {
        problems.push(`${manifest.name} bosun.core is ${core}, not ^${version}: run node scripts/sync-peer-ranges.mjs (pnpm version-packages runs it)`)
      }
    }
    expect(problems).toEqual([])
  })

  it('the scaffold asks for the core and test kit of its own release', () => {
    expect(dependencyRanges['@bosun/core']).toBe(`^${version}`)
    expect(dependencyRanges['@bosun/testkit']).toBe(`^${version}`)
  })

  it('the CLI depends on the parts that need no provider SDK and no native build; SQLite is an optional peer', () => {
    const cli = published.find(({ manifest }) => manifest.name === '@bosun/cli')!.manifest
    const bundled = [
      '@bosun/adapter-scripted', '@bosun/adapter-openai', '@bosun/adapter-anthropic', '@bosun/plugin-store-jsonl',
      '@bosun/plugin-retry', '@bosun/plugin-rate-limit', '@bosun/plugin-content-filter', '@bosun/plugin-compaction', '@bosun/plugin-subagents',
    ]
    for (const name of bundled) expect(Object.values(FIRST_PARTY_PACKAGES).flat(), name).toContain(name)
    expect(Object.keys(cli.dependencies)).toEqual(expect.arrayContaining([...bundled, '@bosun/core']))
    for (const name of ['@bosun/adapter-ai-sdk', '@bosun/plugin-store-sqlite']) expect(cli.dependencies[name], name).toBeUndefined()
    expect(cli.peerDependencies['@bosun/plugin-store-sqlite']).toBe(`^${version}`)
    expect(cli.peerDependenciesMeta).toEqual({ '@bosun/plugin-store-sqlite': { optional: true } })
  })
})
