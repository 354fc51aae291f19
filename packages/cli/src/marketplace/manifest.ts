import type { JsonSchema } from '@bosun/core'
import { compileOptionsValidator, declaredCoreRange } from '@bosun/core/config'
import { safeText } from '../terminal-safe.js'
import { marketplaceError } from './errors.js'
import type { RegistryClient, VersionManifest } from './registry-client.js'
import { readTarballFile } from './tarball.js'

/** What a Bosun package is, by the keyword it carries. */
export type BosunKind = 'plugin' | 'adapter' | 'store'

/** The package.json keyword of each kind: the one `bosun plugins search` filters by. */
export const KIND_KEYWORDS: Record<BosunKind, string> = { plugin: 'bosun-plugin', adapter: 'bosun-adapter', store: 'bosun-store' }

/** The lifecycle scripts npm runs on install: a plugin should need none. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'] as const

/**
 * A Bosun package's manifest, read from its `package.json` (the `bosun` field, docs/marketplace.md):
 * `"bosun": { "kind": "plugin", "hooks": ["agent/pre-step"], "options": "./schema.json", "core": "^0.1.0" }`.
 */
export interface BosunManifest {
  name: string
  version: string
  description: string | undefined
  /** From `bosun.kind`, else from the keyword; `undefined` for a package that is not Bosun's. */
  kind: BosunKind | undefined
  /** The hooks it taps (`bosun.hooks`); `undefined` when it does not say. */
  hooks: string[] | undefined
  /** The path of its options JSON Schema inside the package (`bosun.options`). */
  optionsPath: string | undefined
  /** The `@bosun/core` range it supports (`bosun.core`, else its `@bosun/core` peer range). */
  coreRange: string | undefined
  license: string | undefined
  /** The install-time scripts it declares (`postinstall`…), by name. */
  installScripts: string[]
  /** How many packages it depends on directly (dependencies and optional dependencies). */
  dependencyCount: number
  /** In the `@bosun/` scope: made and released with Bosun. */
  firstParty: boolean
}

/** The kind a package's keywords say it is. */
export function kindOfKeywords(keywords: unknown): BosunKind | undefined {
  if (!Array.isArray(keywords)) return undefined
  return (Object.keys(KIND_KEYWORDS) as BosunKind[]).find((kind) => keywords.includes(KIND_KEYWORDS[kind]))
}

/** The manifest of one version document. */
export function bosunManifest(version: VersionManifest): BosunManifest {
  const bosun = typeof version.bosun === 'object' && version.bosun !== null ? (version.bosun as Record<string, unknown>) : {}
  const declaredKind = typeof bosun.kind === 'string' && bosun.kind in KIND_KEYWORDS ? (bosun.kind as BosunKind) : undefined
  const scripts = typeof version.scripts === 'object' && version.scripts !== null ? (version.scripts as Record<string, unknown>) : {}
  const installScripts: string[] = INSTALL_SCRIPTS.filter((name) => typeof scripts[name] === 'string')
  // The registry marks a package whose tarball has a binding.gyp (npm runs node-gyp for it) with `hasInstallScript`.
  if (installScripts.length === 0 && version.hasInstallScript === true) installScripts.push('install')
  return {
    name: version.name,
    version: version.version,
    description: typeof version.description === 'string' ? version.description : undefined,
    kind: declaredKind ?? kindOfKeywords(version.keywords),
    hooks: Array.isArray(bosun.hooks) ? bosun.hooks.filter((hook): hook is string => typeof hook === 'string') : undefined,
    optionsPath: typeof bosun.options === 'string' ? bosun.options : undefined,
    coreRange: declaredCoreRange(version),
    license: typeof version.license === 'string' ? version.license : undefined,
    installScripts,
    dependencyCount: Object.keys({ ...(version.dependencies ?? {}), ...(version.optionalDependencies ?? {}) }).length,
    firstParty: version.name.startsWith('@bosun/'),
  }
}

/** `name`, `name@1.2.3`, `@scope/name@^1` → the name and the version or range asked for. */
export function parseSpec(spec: string): { name: string; range: string | undefined } {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0)
  return at === -1 ? { name: spec, range: undefined } : { name: spec.slice(0, at), range: spec.slice(at + 1) || undefined }
}

/** The version document `range` picks (default: the `latest` dist-tag). */
export function pickVersion(packument: { name: string; 'dist-tags': Record<string, string>; versions: Record<string, VersionManifest> }, range: string | undefined, satisfies: (version: string, range: string) => boolean): VersionManifest {
  const tagged = packument['dist-tags'][range ?? 'latest']
  if (tagged && packument.versions[tagged]) return packument.versions[tagged]!
  const matching = Object.keys(packument.versions).filter((version) => range !== undefined && satisfies(version, range))
  const best = matching.sort(compareVersions).at(-1)
  if (best) return packument.versions[best]!
  throw marketplaceError('PACKAGE_NOT_FOUND', `${packument.name} has no version ${range ?? 'tagged latest'} (it has ${Object.keys(packument.versions).join(', ') || 'none'}).`, { name: packument.name })
}

/**
 * The options JSON Schema a version declares (`bosun.options`), read from its tarball without
 * installing it; `undefined` when it declares none.
 */
export async function fetchOptionsSchema(client: RegistryClient, version: VersionManifest, manifest: BosunManifest): Promise<JsonSchema | undefined> {
  if (manifest.optionsPath === undefined) return undefined
  const tarball = version.dist?.tarball
  if (typeof tarball !== 'string') return undefined
  const text = readTarballFile(await client.tarball(tarball, `${manifest.name}@${manifest.version}`), manifest.optionsPath)
  if (text === undefined) {
    throw marketplaceError('REGISTRY_ERROR', `${manifest.name}@${manifest.version} declares its options schema at ${manifest.optionsPath}, but its package has no such file. Tell its author.`)
  }
  let schema: unknown
  try {
    schema = JSON.parse(text) as unknown
  } catch {
    // reported below
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw marketplaceError('REGISTRY_ERROR', `${manifest.name}@${manifest.version}: ${manifest.optionsPath} is not a JSON Schema object. Tell its author.`)
  }
  // Compiled here, as the loader will: a schema ajv refuses (`"type": "integr"`) was shown by info
  // as a type "integr", and refused by add as OPTION_INVALID "see the options with: bosun plugins
  // info" — the user's options blamed, and sent to the page that showed the schema as fine.
  try {
    compileOptionsValidator({}, schema as JsonSchema)
  } catch (error) {
    throw marketplaceError(
      'REGISTRY_ERROR',
      `${manifest.name}@${manifest.version}: its options schema (${manifest.optionsPath}) is not a valid JSON Schema (${safeText((error as Error).message.replace(/^The options schema is not a valid JSON Schema: /, ''))}), so no config could load it. Nothing was installed or written. Tell its author, or pick another version: bosun plugins info ${manifest.name}@<version>.`,
    )
  }
  return schema as JsonSchema
}

function compareVersions(a: string, b: string): number {
  const left = a.split(/[.-]/).map((part) => (/^\d+$/.test(part) ? Number(part) : part))
  const right = b.split(/[.-]/).map((part) => (/^\d+$/.test(part) ? Number(part) : part))
  for (let i = 0; i < 3; i++) if (left[i] !== right[i]) return Number(left[i]) - Number(right[i])
  return a.includes('-') === b.includes('-') ? a.localeCompare(b) : a.includes('-') ? -1 : 1
}
