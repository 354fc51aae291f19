import { candidatePackages, type BundledModules, type EntryKind, type LoadedConfig } from '@bosun/core/config'
import { findPackage } from './packages.js'

/**
 * Bosun's parts that need no provider SDK and no native build: the CLI depends on them, so a
 * config can name any of them (`openai`, `anthropic`, `retry`, `subagents`, `store-jsonl`, `store-postgres`…) right after
 * `npm install @bosun/cli`. Names resolve from the config file's folder first; these copies
 * stand in only when the project has none of its own (core's `bundled` option).
 */
const SHIPPED: BundledModules = {
  '@bosun/adapter-scripted': () => import('@bosun/adapter-scripted'),
  '@bosun/adapter-openai': () => import('@bosun/adapter-openai'),
  '@bosun/adapter-anthropic': () => import('@bosun/adapter-anthropic'),
  '@bosun/plugin-store-jsonl': () => import('@bosun/plugin-store-jsonl'),
  // Pure JavaScript (`pg` without its optional native binding): one `bosun serve` per host of a cluster.
  '@bosun/plugin-store-postgres': () => import('@bosun/plugin-store-postgres'),
  '@bosun/plugin-retry': () => import('@bosun/plugin-retry'),
  '@bosun/plugin-rate-limit': () => import('@bosun/plugin-rate-limit'),
  '@bosun/plugin-step-limit': () => import('@bosun/plugin-step-limit'),
  '@bosun/plugin-content-filter': () => import('@bosun/plugin-content-filter'),
  '@bosun/plugin-compaction': () => import('@bosun/plugin-compaction'),
  '@bosun/plugin-subagents': () => import('@bosun/plugin-subagents'),
}

/**
 * The SQLite store is an optional peer: `better-sqlite3` compiles from source where no prebuilt
 * binary can be fetched, so the CLI does not install it. Installed beside the CLI (a global
 * install of both), it is used like the others; installed in the project, it resolves from there.
 * Missing, a config naming `store-sqlite` is told how to add it (core's message for Bosun's own
 * packages: `npm install @bosun/plugin-store-sqlite`).
 */
const OPTIONAL = '@bosun/plugin-store-sqlite'

/** The config names of the plugins the CLI brings (`retry`, `step-limit`…): no install needed to name one. */
export function bundledPluginNames(): string[] {
  return Object.keys(SHIPPED)
    .filter((name) => name.startsWith('@bosun/plugin-') && !name.startsWith('@bosun/plugin-store-'))
    .map((name) => name.slice('@bosun/plugin-'.length))
}

/** What the CLI can hand the config loader: its own dependencies, and the SQLite store when it is installed beside it. */
export function bundledModules(): BundledModules {
  return isInstalledBesideCli(OPTIONAL) ? { ...SHIPPED, [OPTIONAL]: () => import('@bosun/plugin-store-sqlite') } : SHIPPED
}

/** What {@link withBundledFallbacks} found. */
export interface BundledUse {
  /** The config as loaded (names stay names: the loader gets the bundled copies, see {@link bundledModules}). */
  loaded: LoadedConfig
  /** Package names the model and store will be taken from the CLI's own install, by section (`model`, `store`). */
  bundled: Map<'model' | 'store', string>
}

/**
 * Tells which of the model's adapter and the store the CLI's own copies will provide: those whose
 * name means a bundled package while the config's folder resolves none of its candidates. A name
 * the user installed is theirs. (For `bosun config check`, which says where each part comes from.)
 */
export async function withBundledFallbacks(loaded: LoadedConfig): Promise<BundledUse> {
  const bundled = new Map<'model' | 'store', string>()
  const config = loaded.config
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return { loaded, bundled }
  const modules = bundledModules()
  const model = config.model
  const adapter = model === undefined ? 'scripted' : typeof model === 'object' && model !== null ? model.adapter : undefined
  const adapterPackage = bundledFor(loaded.dir, adapter, 'adapter', modules)
  if (adapterPackage) bundled.set('model', adapterPackage)
  const store = config.store
  const storePackage = bundledFor(loaded.dir, Array.isArray(store) ? store[0] : store, 'store', modules)
  if (storePackage) bundled.set('store', storePackage)
  return { loaded, bundled }
}

/** The bundled package a name stands for, if none of its candidates is installed from `dir` (a plugin's too: `bosun config check` says where each comes from). */
export function bundledFor(dir: string, name: unknown, kind: EntryKind, modules: BundledModules = bundledModules()): string | undefined {
  if (typeof name !== 'string' || name === 'memory' || name.startsWith('.') || name.startsWith('/')) return undefined
  const candidates = candidatePackages(name, kind)
  if (candidates.some((candidate) => findPackage(dir, candidate) !== undefined)) return undefined
  return candidates.find((candidate) => candidate in modules)
}

function isInstalledBesideCli(name: string): boolean {
  try {
    import.meta.resolve(name)
    return true
  } catch {
    return false
  }
}
