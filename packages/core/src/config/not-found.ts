import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { installedWithoutEntry } from './installed-entry.js'
import { suggest } from './problems.js'
import type { EntryKind } from './types.js'

/**
 * Bosun's own packages that a config names by short name (`openai`, `retry`, `store-jsonl`), by
 * the section they go in. Only these (and a full third-party package name typed by the user) are
 * ever answered with an install command: a hint built from a typo would invite installing
 * whatever a squatter published under it.
 */
export const FIRST_PARTY_PACKAGES = {
  adapter: ['@bosun/adapter-scripted', '@bosun/adapter-openai', '@bosun/adapter-anthropic', '@bosun/adapter-ai-sdk'],
  store: ['@bosun/plugin-store-jsonl', '@bosun/plugin-store-sqlite', '@bosun/plugin-store-postgres'],
  plugin: ['@bosun/plugin-retry', '@bosun/plugin-rate-limit', '@bosun/plugin-step-limit', '@bosun/plugin-content-filter', '@bosun/plugin-compaction', '@bosun/plugin-subagents'],
} as const satisfies Record<Exclude<EntryKind, 'tool'>, readonly string[]>

/** What {@link notFoundMessage} needs to know about a name that resolved nowhere. */
export interface NotFound {
  /** The name as the config wrote it. */
  name: string
  kind: EntryKind
  /** The package names tried, in order. */
  tried: readonly string[]
  /** Where resolution started: the config file's folder. */
  dir: string
  /** Package names the caller bundles (they count as known names). */
  bundled: readonly string[]
}

/**
 * The short name a config uses for a package of this kind: `@bosun/plugin-retry` → `retry`,
 * `bosun-plugin-word-guard` → `word-guard`, `@acme/bosun-plugin-x` → `@acme/x` (adapters the
 * same with `adapter`). `undefined` for a package whose name does not follow the convention.
 *
 * @example
 * configNameOf('@bosun/adapter-openai', 'adapter') // 'openai'
 */
export function configNameOf(packageName: string, kind: EntryKind): string | undefined {
  const prefix = prefixOf(kind)
  const own = new RegExp(`^@bosun/${prefix}-(.+)$`).exec(packageName)
  if (own) return own[1]
  const scoped = new RegExp(`^(@[^/]+)/bosun-${prefix}-(.+)$`).exec(packageName)
  if (scoped) return `${scoped[1]}/${scoped[2]}`
  return new RegExp(`^bosun-${prefix}-(.+)$`).exec(packageName)?.[1]
}

/**
 * Says why a name resolved nowhere and what to do, without ever suggesting to install a typo:
 * - installed, but its entry file is missing: say so ({@link installedWithoutEntry});
 * - one of Bosun's own packages: install it (the command is given);
 * - close to a known name (first-party, bundled or installed): "did you mean";
 * - a third-party package name written in full: install it (the user typed that name);
 * - anything else: check the spelling, and the known names.
 */
export function notFoundMessage({ name, kind, tried, dir, bundled }: NotFound): string {
  const where = `(resolving from ${dir})`
  const broken = installedWithoutEntry(tried, dir)
  if (broken !== undefined) return broken
  const attempt = `cannot be found: tried ${tried.join(', then ')} ${where}.`
  if (kind === 'tool') return `${attempt} Install the tool package (npm install ${name}) or correct the name.`
  const own = tried.find((candidate) => FIRST_PARTY.has(candidate))
  if (own !== undefined) return `cannot be found: ${own} is not installed ${where}. It is one of Bosun's own packages: install it (npm install ${own}).`

  const known = knownNames(kind, dir, bundled)
  const short = configNameOf(name, kind)
  const fullName = short !== undefined
  const guess = suggest(short ?? name, [...known.keys()])
  if (guess !== undefined) {
    const pkg = known.get(guess)
    const shown = fullName && pkg !== undefined ? JSON.stringify(pkg) : `${JSON.stringify(guess)}${pkg === undefined ? '' : ` (${pkg})`}`
    return `${attempt} Did you mean ${shown}?`
  }
  if (fullName && !name.startsWith('@bosun/')) return `cannot be found: ${name} is not installed ${where}. Install it (npm install ${name}) or correct the name.`
  const names = [...known.keys()].sort()
  const list = names.length === 0 ? '' : ` Known ${kind}s: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''}.`
  return (
    `${attempt} It is not one of Bosun's ${kind}s, and no installed package provides it. Check the spelling; a third-party ${kind} ` +
    `is installed by its full package name (bosun-${prefixOf(kind)}-<name> or @scope/bosun-${prefixOf(kind)}-<name>), then named here.${list}`
  )
}

const FIRST_PARTY: ReadonlySet<string> = new Set(Object.values(FIRST_PARTY_PACKAGES).flat())

/** Short names a config could mean, with their packages: first-party, bundled, and installed from `dir` upwards. */
function knownNames(kind: Exclude<EntryKind, 'tool'>, dir: string, bundled: readonly string[]): Map<string, string | undefined> {
  const known = new Map<string, string | undefined>()
  if (kind === 'store') known.set('memory', undefined)
  for (const pkg of [...FIRST_PARTY_PACKAGES[kind], ...bundled, ...installedPackages(dir, prefixOf(kind))]) {
    // Stores and plugins share the `plugin-` prefix: Bosun's own stores are not offered as plugins, nor the reverse.
    if (FIRST_PARTY.has(pkg) && !(FIRST_PARTY_PACKAGES[kind] as readonly string[]).includes(pkg)) continue
    const short = configNameOf(pkg, kind)
    if (short !== undefined && !known.has(short)) known.set(short, pkg)
  }
  return known
}

/** Package names in `node_modules` from `dir` up to the root that follow the naming convention for `prefix`. */
function installedPackages(dir: string, prefix: 'adapter' | 'plugin'): string[] {
  const found: string[] = []
  for (let at = dir; ; at = dirname(at)) {
    const modules = join(at, 'node_modules')
    for (const entry of list(modules)) {
      if (entry.startsWith(`bosun-${prefix}-`)) found.push(entry)
      else if (entry.startsWith('@')) {
        const wanted = entry === '@bosun' ? `${prefix}-` : `bosun-${prefix}-`
        for (const inner of list(join(modules, entry))) if (inner.startsWith(wanted)) found.push(`${entry}/${inner}`)
      }
    }
    if (dirname(at) === at) return found
  }
}

function list(folder: string): string[] {
  try {
    return readdirSync(folder)
  } catch {
    return []
  }
}

function prefixOf(kind: EntryKind): 'adapter' | 'plugin' {
  return kind === 'adapter' ? 'adapter' : 'plugin'
}
