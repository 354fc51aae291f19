import { envVariablesNamed } from '@bosun/core/config'
import { readNpmConfig } from './npm-config.js'

/**
 * The environment `bosun plugins add` and `remove` run the package manager with. npm (pnpm, yarn)
 * runs the install scripts of every package it installs — the plugin's dependencies' too, a
 * `postinstall`, a native build — with the environment it was given: the user's whole shell,
 * provider keys included, would be theirs to read. So the variables that hold the user's secrets
 * are withheld, and what the package manager needs for itself is kept.
 */

/**
 * The package managers' own settings (`npm_config_*`: the registry, the cache, a proxy, a token
 * given as `npm_config_//host/:_authToken`; `YARN_*`, `PNPM_*`, `COREPACK_*`). Not the token
 * variables CI sets up for `.npmrc` files (`NPM_TOKEN`, `NODE_AUTH_TOKEN`): npm reads them only
 * through an `.npmrc`'s `${VAR}`, which keeps them — otherwise a postinstall would get a publish
 * token npm never needed.
 */
const PACKAGE_MANAGER_OWN = /^(npm_config_|yarn_|pnpm_|corepack_)/i

/**
 * Names that hold a credential by convention: `*_API_KEY`, `*_TOKEN`, `*SECRET*`, `*PASSWORD*`
 * (`PGPASSWORD` too), `*_ACCESS_KEY*`, `*_PRIVATE_KEY`, `*CREDENTIALS*`. Not `*_AUTH_*`, which
 * would take `SSH_AUTH_SOCK` (a git dependency over ssh needs it).
 */
const SECRET_NAME = /PASSWORD|PASSWD|PASSPHRASE|SECRET|(^|_)(API_?KEY|ACCESS_?KEY(_ID)?|PRIVATE_?KEY|TOKEN|CREDENTIALS?)($|_)/i

/** The provider keys Bosun's adapters read by default, and cloud keys whose names the pattern may miss. */
const WELL_KNOWN = new Set(['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'])

export interface PackageManagerEnvOptions {
  /** The variables the config's `…Env` options name: its own secrets (`apiKeyEnv`, `urlEnv`). */
  configVariables: Iterable<string>
  /** The variables the `.npmrc` files read with `${VAR}` (a registry token): the package manager needs them. */
  npmrcVariables: Iterable<string>
}

/** The package manager's environment, and the names withheld from it (names only: never a value). */
export interface PackageManagerEnv {
  env: Record<string, string>
  withheld: string[]
}

/**
 * `env` without the variables that hold the user's secrets — those the config names, the
 * well-known provider keys, and any whose name says it holds a credential — except what the
 * package manager reads for itself: its own settings and the variables its `.npmrc` files name
 * (a registry's `${NPM_TOKEN}` is kept even when the config names it too: without it npm cannot
 * install). Everything else (PATH, HOME, proxies, locale, TMPDIR, SSH_AUTH_SOCK) is kept.
 */
export function packageManagerEnv(env: Readonly<Record<string, string | undefined>>, options: PackageManagerEnvOptions): PackageManagerEnv {
  const named = new Set(options.configVariables)
  const npmrc = new Set(options.npmrcVariables)
  const kept: Record<string, string> = {}
  const withheld: string[] = []
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    const own = PACKAGE_MANAGER_OWN.test(name) || npmrc.has(name)
    if (!own && (named.has(name) || WELL_KNOWN.has(name) || SECRET_NAME.test(name))) withheld.push(name)
    else kept[name] = value
  }
  return { env: kept, withheld: withheld.sort() }
}

/**
 * {@link packageManagerEnv} for a package manager run in `dir` for a project whose config is
 * `config` (as loaded, before any check): the config's `…Env` names, and the `.npmrc` files npm
 * reads there. `undefined` (a config that could not be loaded) names none: `alsoNamed` (the
 * variables its text names) and the patterns choose.
 */
export function installEnvFor(dir: string, env: Readonly<Record<string, string | undefined>>, config: unknown, alsoNamed: readonly string[] = []): PackageManagerEnv {
  return packageManagerEnv(env, { configVariables: [...envVariablesNamed(config), ...alsoNamed], npmrcVariables: readNpmConfig(dir, env).variables })
}
