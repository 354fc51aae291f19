// Every Bosun package of this repository carries the manifest `bosun plugins search | info | add`
// read from the registry (docs/marketplace.md): a kind that matches its keyword, and an options
// schema file that is published and equal to the schema its definition validates with. The files
// are written by scripts/write-manifest-schemas.mjs; this test fails while one is stale.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'
import { coreSatisfies, declaredCoreRange } from '@bosun/core/config'

const root = fileURLToPath(new URL('../../', import.meta.url))
const KINDS: Record<string, string> = { 'bosun-plugin': 'plugin', 'bosun-adapter': 'adapter', 'bosun-store': 'store' }

const packages = ['packages/adapters', 'packages/plugins', 'examples'].flatMap((parent) =>
  readdirSync(join(root, parent))
    .map((name) => join(root, parent, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, any> }))
    .filter(({ manifest }) => (manifest.keywords ?? []).some((keyword: string) => keyword in KINDS)),
)

it('finds the first-party plugins, adapters and stores, and the example plugin', () => {
  const names = packages.map(({ manifest }) => manifest.name)
  expect(names).toEqual(expect.arrayContaining(['@bosun/plugin-retry', '@bosun/adapter-openai', '@bosun/plugin-store-jsonl', 'bosun-plugin-word-limit']))
})

it.each(packages.map(({ dir, manifest }) => [manifest.name as string, dir, manifest] as const))('%s: kind, options schema file, core range', async (_name, dir, manifest) => {
  const keyword = (manifest.keywords as string[]).find((word) => word in KINDS)!
  expect(manifest.bosun?.kind, 'bosun.kind').toBe(KINDS[keyword])
  const options = manifest.bosun?.options as string
  expect(typeof options, 'bosun.options').toBe('string')
  expect(manifest.files, 'files').toContain(options.replace(/^\.\//, ''))
  const entry = manifest.exports?.['.']?.['bosun-source'] ?? 'src/index.ts'
  const { default: definition } = (await import(pathToFileURL(join(dir, entry)).href)) as { default: { schema?: unknown } }
  const file = join(dir, options)
  expect(existsSync(file), `${options} is missing: run pnpm build && node scripts/write-manifest-schemas.mjs`).toBe(true)
  expect(JSON.parse(readFileSync(file, 'utf8')), `${options} is stale: run pnpm build && node scripts/write-manifest-schemas.mjs`).toEqual(definition.schema ?? {})
  const range = declaredCoreRange(manifest)
  if (range !== undefined) expect(coreSatisfies(range), `@bosun/core ${range}`).toBe(true)
})
