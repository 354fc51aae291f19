import { readdir } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { readManifest } from './packages.js'

/** A Bosun plugin package found in a `node_modules` folder. */
export interface InstalledPlugin {
  /** The package name: `@bosun/plugin-retry`, `bosun-plugin-guard`, `@acme/bosun-plugin-guard`. */
  name: string
  /** The short name a config uses for it: `retry`, `guard`, `@acme/guard`. */
  configName: string
  version: string | undefined
  description: string | undefined
  /** The hooks its `package.json` declares (`"bosun": { "hooks": [...] }`); `undefined` without a manifest. */
  hooks: string[] | undefined
  /** The package's folder. */
  dir: string
}

/** Options of {@link scanPlugins}. */
export interface ScanPluginsOptions {
  /** Where the search starts. Default: `process.cwd()`. */
  cwd?: string
  /** The package.json keyword that marks a plugin. Default `bosun-plugin`. */
  keyword?: string
}

/**
 * Finds installed Bosun plugins: every package (scoped ones included) in `node_modules` of the
 * cwd and of each folder above it whose `package.json` has the keyword `bosun-plugin`. A name
 * found in a nearer folder hides the same name further up, as Node's resolution would. Sorted by
 * name. Unreadable folders and broken manifests are skipped.
 *
 * @example
 * for (const plugin of await scanPlugins({ cwd: process.cwd() })) console.log(plugin.name, plugin.hooks)
 */
export async function scanPlugins(options: ScanPluginsOptions = {}): Promise<InstalledPlugin[]> {
  const keyword = options.keyword ?? 'bosun-plugin'
  const found = new Map<string, InstalledPlugin>()
  for (let dir = resolve(options.cwd ?? process.cwd()); ; dir = dirname(dir)) {
    for (const packageDir of await packageDirs(join(dir, 'node_modules'))) {
      const manifest = readManifest(packageDir)
      if (!manifest || typeof manifest.name !== 'string' || found.has(manifest.name)) continue
      if (!Array.isArray(manifest.keywords) || !manifest.keywords.includes(keyword)) continue
      const hooks = manifest.bosun?.hooks
      found.set(manifest.name, {
        name: manifest.name,
        configName: configName(manifest.name),
        version: typeof manifest.version === 'string' ? manifest.version : undefined,
        description: typeof manifest.description === 'string' ? manifest.description : undefined,
        hooks: Array.isArray(hooks) ? hooks.filter((hook): hook is string => typeof hook === 'string') : undefined,
        dir: packageDir,
      })
    }
    if (dirname(dir) === dir) break
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name))
}

/**
 * The short name a config names a plugin package by (the inverse of the loader's lookup):
 * `@bosun/plugin-x` → `x`, `bosun-plugin-x` → `x`, `@acme/bosun-plugin-x` → `@acme/x`; any
 * other name as it is.
 */
export function configName(packageName: string): string {
  const first = /^@bosun\/plugin-(.+)$/.exec(packageName)
  if (first) return first[1]!
  const scoped = /^(@[^/]+)\/bosun-plugin-(.+)$/.exec(packageName)
  if (scoped) return `${scoped[1]}/${scoped[2]}`
  const plain = /^bosun-plugin-(.+)$/.exec(packageName)
  return plain ? plain[1]! : packageName
}

/** Package folders directly in a `node_modules` (and one level into `@scope` folders); none if it does not exist. */
async function packageDirs(nodeModules: string): Promise<string[]> {
  const names = await list(nodeModules)
  const dirs: string[] = []
  for (const name of names) {
    if (name.startsWith('.')) continue // .bin, .pnpm, .cache
    if (name.startsWith('@')) {
      for (const inner of await list(join(nodeModules, name))) if (!inner.startsWith('.')) dirs.push(join(nodeModules, name, inner))
    } else dirs.push(join(nodeModules, name))
  }
  return dirs
}

async function list(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort()
  } catch {
    return []
  }
}
