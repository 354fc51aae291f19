import { candidatePackages, satisfiesRange } from '@bosun/core/config'
import { bundledModules } from '../bundled.js'
import type { CommandContext } from '../context.js'
import { cliError } from '../errors.js'
import { marketplaceError } from './errors.js'
import { bosunManifest, parseSpec, pickVersion, type BosunManifest } from './manifest.js'
import { readNpmConfig } from './npm-config.js'
import { RegistryClient, type Packument, type VersionManifest } from './registry-client.js'

/** The registry client for a command: the user's npm configuration, `--registry` replacing its default registry. */
export function registryClient(ctx: CommandContext, registry: string | undefined): RegistryClient {
  return new RegistryClient(readNpmConfig(ctx.io.cwd, ctx.io.env), registry)
}

/** A Bosun package found on the registry: the version picked and its manifest. */
export interface FoundPackage {
  version: VersionManifest
  manifest: BosunManifest
}

/**
 * The package `spec` names on the registry (`@acme/bosun-plugin-x`, `bosun-plugin-x@1.2.0`): its
 * latest version, or the one the spec's range or tag picks. A short name (`word-guard`) is looked
 * up as the config would name it (`@bosun/plugin-word-guard`, then `bosun-plugin-word-guard`),
 * then as typed; never by similarity. Refuses a package that is not a Bosun plugin, adapter or store.
 */
export async function findOnRegistry(client: RegistryClient, spec: string): Promise<FoundPackage> {
  const { name, range } = parseSpec(spec)
  refuseImpossibleName(name)
  // The config's lookup first (`rate-limit` is @bosun/plugin-rate-limit, not the unrelated npm
  // package "rate-limit"), the name exactly as typed last.
  const kind = /^(@[^/]+\/)?bosun-adapter-/.test(name) ? 'adapter' : 'plugin'
  const candidates = [...new Set([...candidatePackages(name, kind), name])]
  let lastError: unknown
  for (const candidate of candidates) {
    let packument: Packument
    try {
      packument = await client.packument(candidate)
    } catch (error) {
      if ((error as { code?: string }).code !== 'PACKAGE_NOT_FOUND') throw error
      // `retry` on a registry without Bosun's packages (a mirror): the CLI has it, so the config
      // names it as it is — not the unrelated npm package "retry" that the next candidate is.
      if (candidate !== name && Object.hasOwn(bundledModules(), candidate)) {
        throw marketplaceError('BUNDLED_WITH_CLI', `${name} comes with the CLI: no install needed; add it to your config as "${name}".`, { name, package: candidate })
      }
      lastError = error
      continue
    }
    // The first name that exists is the package, as in a config: without the version asked for it
    // is "bosun-plugin-word-guard has no version 9.9.9 (it has …)" — never "no package … on the
    // registry" (which sent the user looking for a typo in the name), nor a later candidate's
    // version (`rate-limit@9.9.9` is not the unrelated npm package "rate-limit").
    const version = releaseOf(candidate, pickVersion(packument, range, satisfiesRange))
    const manifest = bosunManifest(version)
    if (manifest.kind === undefined) {
      // Reached through a short name (`openai`, meant as the adapter a config names so): the
      // package as typed is someone else's. Say which plugin names were looked for first, and how
      // an adapter or a store is found — never which package the user "meant".
      const lookedFor = candidate === name && candidates.length > 1 ? candidates.filter((other) => other !== name) : []
      const before = lookedFor.length > 0 ? `no Bosun plugin ${lookedFor.map((other) => `"${other}"`).join(' or ')} on the registry, and ` : ''
      const after = lookedFor.length > 0 ? ` An adapter or a store is named by its package (bosun plugins search ${name} lists them).` : ''
      throw marketplaceError(
        'NOT_A_BOSUN_PACKAGE',
        `${before}${manifest.name}@${manifest.version} is not a Bosun package: it has none of the keywords "bosun-plugin", "bosun-adapter", "bosun-store".${after} Nothing was installed.`,
      )
    }
    return { version, manifest }
  }
  if (candidates.length > 1) {
    throw marketplaceError('PACKAGE_NOT_FOUND', `no package ${candidates.map((candidate) => `"${candidate}"`).join(' or ')} on the registry. Check the name (bosun plugins search <words> lists what there is).`, { name })
  }
  throw lastError
}

/** A release's version as npm writes it: not a URL, a path, a tag or a git spec. */
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/

/**
 * The version document, once it is a release of `name`: what is shown, checked and installed is
 * `<its name>@<its version>`, so a document that names another package (`evil`, a URL, a git
 * spec) or a version that is no version (`https://…/x.tgz`, `file:…`) would have the package
 * manager install something else than what was shown and checked.
 */
function releaseOf(name: string, version: VersionManifest): VersionManifest {
  if (version.name === name && typeof version.version === 'string' && SEMVER.test(version.version)) return version
  throw marketplaceError(
    'REGISTRY_ERROR',
    `the registry's document for ${name} ${version.name === name ? 'gives a version that is not a version number' : 'names another package'} (not shown); refused, nothing was installed. Check the registry (the "registry" in your .npmrc, or --registry).`,
    { name },
  )
}

/**
 * npm's rule for a package name (validate-npm-package-name, new packages): lower-case, URL-safe,
 * `@scope/` before the name, at most 214 characters. Every name a Bosun package can have follows
 * it, and so does every short name a config can give one.
 */
const PACKAGE_NAME = /^(?:@[a-z0-9-*~][a-z0-9-*._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/

/**
 * A name no package can have is a mistake in the command line, said as one (exit 2) before the
 * registry is asked: it was sent as it was, so `Word-Guard` was "no package … on the registry" and
 * ` word-guard` (a stray space) was the registry's "answered 400 … Try again later".
 */
function refuseImpossibleName(name: string): void {
  if (name.length <= 214 && PACKAGE_NAME.test(name)) return
  const lower = name.trim().toLowerCase()
  const hint = lower !== name && PACKAGE_NAME.test(lower) ? ` Package names are lower-case, without spaces: ${lower}.` : ''
  const scope = /^[a-z0-9-._~]+\/[a-z0-9-._~]+$/.test(lower) ? ` A scope starts with "@": @${lower}.` : /^@[^/]*$/.test(name) ? ' A scope needs a name after it: @scope/name.' : ''
  throw cliError(
    'USAGE',
    `${JSON.stringify(name)} cannot be an npm package name (lower-case letters, digits, "-", ".", "_", "~"; a scope as @scope/name).${hint}${scope} Nothing was looked up.`,
    { name },
  )
}
