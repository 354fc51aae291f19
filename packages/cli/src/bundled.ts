import { candidatePackages, type BosunConfig, type EntryKind, type LoadedConfig } from '@bosun/core/config'
import { findPackage } from './packages.js'

/**
 * The adapter and stores the CLI ships with. A config names them by short name (`scripted`,
 * `store-jsonl`); names resolve from the config file's folder, so in a folder where they are not
 * installed (a fresh project, a temp dir) the CLI hands the loader its own copy instead.
 */
const BUNDLED: Readonly<Record<string, () => Promise<unknown>>> = {
  '@bosun/adapter-scripted': async () => (await import('@bosun/adapter-scripted')).default,
  '@bosun/plugin-store-jsonl': async () => (await import('@bosun/plugin-store-jsonl')).default,
  '@bosun/plugin-store-sqlite': async () => (await import('@bosun/plugin-store-sqlite')).default,
}

/** What {@link withBundledFallbacks} substituted. */
export interface BundledUse {
  /** The config with bundled definitions in place of names that do not resolve from its folder. */
  loaded: LoadedConfig
  /** Package names taken from the CLI's own install, by section (`model`, `store`). */
  bundled: Map<'model' | 'store', string>
}

/**
 * Replaces `model.adapter` and the store name by the CLI's bundled definitions when the name
 * means one of them and the config's folder cannot resolve any of its packages. A name that
 * resolves from the folder (the user installed it) is left alone: the user's copy wins. Error
 * paths are unchanged: the definition sits exactly where the name was.
 */
export async function withBundledFallbacks(loaded: LoadedConfig): Promise<BundledUse> {
  const bundled = new Map<'model' | 'store', string>()
  const config = loaded.config
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return { loaded, bundled }
  const next: BosunConfig = { ...config }

  const model = config.model
  const adapter = model === undefined ? 'scripted' : model.adapter
  const adapterPackage = bundledFor(loaded.dir, adapter, 'adapter')
  if (adapterPackage && (model === undefined || (typeof model === 'object' && model !== null))) {
    next.model = { ...(model ?? {}), adapter: (await BUNDLED[adapterPackage]!()) as never }
    bundled.set('model', adapterPackage)
  }

  const store = config.store
  const storeName = Array.isArray(store) ? store[0] : store
  const storePackage = bundledFor(loaded.dir, storeName, 'store')
  if (storePackage) {
    const definition = (await BUNDLED[storePackage]!()) as never
    next.store = Array.isArray(store) ? ([definition, ...store.slice(1)] as never) : definition
    bundled.set('store', storePackage)
  }
  return { loaded: bundled.size === 0 ? loaded : { ...loaded, config: next }, bundled }
}

/** The bundled package a name stands for, if none of its candidates is installed from `dir`. */
function bundledFor(dir: string, name: unknown, kind: EntryKind): string | undefined {
  if (typeof name !== 'string' || name === 'memory' || name.startsWith('.') || name.startsWith('/')) return undefined
  const candidates = candidatePackages(name, kind)
  const pkg = candidates.find((candidate) => candidate in BUNDLED)
  if (pkg === undefined) return undefined
  return candidates.some((candidate) => findPackage(dir, candidate) !== undefined) ? undefined : pkg
}
