import { configName } from '../plugins-scan.js'
import type { BosunManifest } from './manifest.js'

/**
 * The name a config gives a package of this kind, the inverse of the loader's lookup: a plugin's
 * or a store's short name (`@bosun/plugin-store-jsonl` → `store-jsonl`), an adapter's for
 * `model.adapter` (`@bosun/adapter-openai` → `openai`, `@acme/bosun-adapter-x` → `@acme/x`). The
 * package name itself is shown when it follows neither naming.
 */
export function entryName(name: string, kind: BosunManifest['kind']): string {
  if (kind !== 'adapter') return configName(name)
  const first = /^@bosun\/adapter-(.+)$/.exec(name)
  if (first) return first[1]!
  const scoped = /^(@[^/]+)\/bosun-adapter-(.+)$/.exec(name)
  if (scoped) return `${scoped[1]}/${scoped[2]}`
  return /^bosun-adapter-(.+)$/.exec(name)?.[1] ?? name
}

/** What `info` and `add` say for a manifest without `bosun.hooks`: an adapter or a store taps none. */
export function undeclaredHooks(kind: BosunManifest['kind']): string {
  return kind === 'adapter' ? '- (an adapter taps no hooks)' : kind === 'store' ? '- (a store taps no hooks)' : '(not declared)'
}
