import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, type Plugin } from '@bosun/core'
import { CORE_VERSION, coreSatisfies } from '@bosun/core/config'
import { AssertionError } from './expect.js'

/** Where {@link expectManifest} finds the package: its folder, or a file inside it (`import.meta.url` works). */
export type PackageLocation = string | URL

/**
 * Checks a plugin package's manifest (docs/marketplace.md) against the plugin itself, so that what
 * `bosun plugins search|info|add` read from the registry is true: the keyword `bosun-plugin`;
 * `"bosun": { "kind": "plugin" }`; `bosun.hooks` exactly the hooks `setup` taps with `options`;
 * `bosun.options` named when the plugin has a schema, and that file (once built) equal to it;
 * `bosun.core` equal to the `@bosun/core` peer range and satisfied by the core running the test.
 * Throws an {@link AssertionError} listing every mismatch.
 *
 * @example
 * it('its manifest tells the truth', () => expectManifest(new URL('..', import.meta.url), plugin, { words: ['x'] }))
 */
export async function expectManifest<Options>(location: PackageLocation, plugin: Plugin<Options>, options: Options): Promise<void> {
  const dir = packageDir(location)
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, any>
  const bosun = (manifest.bosun ?? {}) as { kind?: unknown; hooks?: unknown; options?: unknown; core?: unknown }
  const problems: string[] = []
  if (!Array.isArray(manifest.keywords) || !manifest.keywords.includes('bosun-plugin')) problems.push('"keywords" must include "bosun-plugin" (bosun plugins search finds packages by it)')
  if (bosun.kind !== 'plugin') problems.push(`"bosun.kind" must be "plugin", got ${JSON.stringify(bosun.kind)}`)

  const agent = await createAgent({ model: scripted({ responses: [] }), plugins: [[plugin as Plugin<never>, options as never]] })
  const tapped = Object.values(agent.hooks as unknown as Record<string, { name?: string; taps: { name: string }[] }>)
    .filter((hook) => hook.taps.some((tap) => tap.name === plugin.name))
    .map((hook) => hook.name ?? '?')
    .sort()
  await agent.close()
  const declared = Array.isArray(bosun.hooks) ? [...(bosun.hooks as string[])].sort() : undefined
  if (JSON.stringify(declared) !== JSON.stringify(tapped)) problems.push(`"bosun.hooks" must be ${JSON.stringify(tapped)} (what setup taps), got ${JSON.stringify(bosun.hooks)}`)

  if (plugin.schema !== undefined) {
    if (typeof bosun.options !== 'string') problems.push('"bosun.options" must name the options schema file (e.g. "./schema.json"), since the plugin has a schema')
    else {
      const file = join(dir, bosun.options)
      if (existsSync(file) && JSON.stringify(JSON.parse(readFileSync(file, 'utf8'))) !== JSON.stringify(plugin.schema)) {
        problems.push(`${bosun.options} differs from the plugin's schema: rebuild it (npm run build)`)
      }
      if (Array.isArray(manifest.files) && !manifest.files.some((entry: unknown) => typeof entry === 'string' && entry.replace(/^\.\//, '') === bosun.options!.toString().replace(/^\.\//, ''))) {
        problems.push(`"files" must include ${bosun.options}, or it is not published`)
      }
    }
  }
  const peer = manifest.peerDependencies?.['@bosun/core']
  if (typeof bosun.core !== 'string') problems.push('"bosun.core" must give the @bosun/core range the plugin supports')
  else {
    if (peer !== undefined && peer !== bosun.core) problems.push(`"bosun.core" (${bosun.core}) and the @bosun/core peer range (${peer}) must be the same`)
    if (!coreSatisfies(bosun.core)) problems.push(`"bosun.core" (${bosun.core}) does not include the @bosun/core running this test (${CORE_VERSION})`)
  }
  if (problems.length > 0) {
    throw new AssertionError(`The manifest of ${String(manifest.name)} does not match the plugin:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`, [], problems)
  }
}

function packageDir(location: PackageLocation): string {
  let dir = location instanceof URL || location.startsWith('file:') ? fileURLToPath(location) : location
  if (existsSync(join(dir, 'package.json'))) return dir
  for (dir = dirname(dir); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new AssertionError(`no package.json at or above ${String(location)}`, 'package.json', undefined)
  }
}
