import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

/** What the marketplace needs from the user's npm configuration. */
export interface NpmConfig {
  /** The default registry, always ending in `/`. */
  registry: string
  /** `@scope` → registry URL (`@acme:registry=…`). */
  scopes: Map<string, string>
  /**
   * `//host/path/:key` settings (auth tokens), by their nerf-dart prefix. Never printed. `unset`:
   * the `${VAR}`s the line reads that the environment does not set (the token is then empty).
   */
  credentials: Map<string, { token?: string; basic?: string; unset?: string[] }>
  /** The environment variables the `.npmrc` files read (`${NPM_TOKEN}`): npm needs them. */
  variables: Set<string>
}

const DEFAULT_REGISTRY = 'https://registry.npmjs.org/'

/**
 * Reads npm's configuration as npm would for a command run in `cwd`: `npm_config_*` environment
 * variables first, then the project's `.npmrc` (beside the nearest package.json), the user's
 * (`npm_config_userconfig`, default `~/.npmrc`) and the global one (`npm_config_globalconfig`).
 * `${VAR}` in a value is taken from the environment, as npm does, so a token can stay in one.
 */
export function readNpmConfig(cwd: string, env: Readonly<Record<string, string | undefined>>): NpmConfig {
  const layers: Map<string, string>[] = [fromEnv(env)]
  const variables = new Set<string>()
  const project = projectRoot(cwd)
  if (project) layers.push(readIni(join(project, '.npmrc'), env, variables))
  layers.push(readIni(env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? join(env.HOME ?? homedir(), '.npmrc'), env, variables))
  const global = env.npm_config_globalconfig ?? env.NPM_CONFIG_GLOBALCONFIG
  if (global) layers.push(readIni(global, env, variables))
  const get = (key: string) => layers.find((layer) => layer.has(key))?.get(key)
  const scopes = new Map<string, string>()
  const credentials = new Map<string, { token?: string; basic?: string; unset?: string[] }>()
  for (const layer of [...layers].reverse()) {
    for (const [key, value] of layer) {
      const scope = /^(@[^:]+):registry$/.exec(key)
      if (scope) scopes.set(scope[1]!, withSlash(value))
      const credential = /^(\/\/.+?):(_authToken|_auth)$/.exec(key)
      if (credential) {
        const entry = credentials.get(credential[1]!) ?? {}
        if (credential[2] === '_authToken') entry.token = value
        else entry.basic = value
        const unset = unsetVariables.get(layer)?.get(key)
        if (unset === undefined) delete entry.unset
        else entry.unset = unset
        credentials.set(credential[1]!, entry)
      }
    }
  }
  return { registry: withSlash(get('registry') ?? DEFAULT_REGISTRY), scopes, credentials, variables }
}

/** The registry a package comes from: its scope's, else the default. */
export function registryFor(config: NpmConfig, packageName: string): string {
  const scope = packageName.startsWith('@') ? packageName.slice(0, packageName.indexOf('/')) : undefined
  return (scope && config.scopes.get(scope)) || config.registry
}

/**
 * The `Authorization` header for `url`, from the credential whose `//host/path/` prefix is the
 * longest that `url` starts with (npm's "nerf dart" matching): a token set for one registry is
 * never sent to another host.
 */
export function authorizationFor(config: NpmConfig, url: string): string | undefined {
  const best = credentialFor(config, url)
  if (best?.token) return `Bearer ${best.token}`
  if (best?.basic) return `Basic ${best.basic}`
  return undefined
}

/**
 * The `${VAR}`s that the credential line for `url` reads and the environment does not set: its
 * token was then empty and none was sent, and "add a token" would send the user after a line
 * their `.npmrc` already has.
 */
export function unsetTokenVariables(config: NpmConfig, url: string): string[] {
  return credentialFor(config, url)?.unset ?? []
}

function credentialFor(config: NpmConfig, url: string): { prefix: string; token?: string; basic?: string; unset?: string[] } | undefined {
  const parsed = new URL(url)
  const target = `//${parsed.host}${parsed.pathname}`
  let best: { prefix: string; token?: string; basic?: string; unset?: string[] } | undefined
  for (const [prefix, entry] of config.credentials) {
    const normalized = prefix.endsWith('/') ? prefix : `${prefix}/`
    if (target.startsWith(normalized) && (best === undefined || normalized.length > best.prefix.length)) best = { prefix: normalized, ...entry }
  }
  return best
}

/** A registry URL for messages: no user or password, no query. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url)
    parsed.username = ''
    parsed.password = ''
    parsed.search = ''
    return parsed.href
  } catch {
    return '(an invalid URL)'
  }
}

function fromEnv(env: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const layer = new Map<string, string>()
  for (const [name, value] of Object.entries(env)) {
    const match = /^npm_config_(.+)$/i.exec(name)
    if (match && value !== undefined && value !== '') layer.set(match[1]!.toLowerCase() === 'registry' ? 'registry' : match[1]!, value)
  }
  return layer
}

/** `key=value` lines of an `.npmrc` (`;` and `#` start comments); a missing file is empty. Adds the names of the `${VAR}`s it reads to `variables`. */
/** For each layer `readIni` read, its keys whose `${VAR}`s were not set, with those names. */
const unsetVariables = new WeakMap<Map<string, string>, Map<string, string[]>>()

function readIni(file: string, env: Readonly<Record<string, string | undefined>>, variables: Set<string>): Map<string, string> {
  const layer = new Map<string, string>()
  const unset = new Map<string, string[]>()
  unsetVariables.set(layer, unset)
  if (!existsSync(file)) return layer
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return layer
  }
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue
    const at = line.indexOf('=')
    if (at <= 0) continue
    let value = line.slice(at + 1).trim()
    if (/^".*"$/.test(value)) value = value.slice(1, -1)
    const key = line.slice(0, at).trim()
    const missing: string[] = []
    value = value.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      variables.add(name)
      if (env[name] === undefined) missing.push(name)
      return env[name] ?? ''
    })
    layer.set(key, value)
    if (missing.length > 0) unset.set(key, missing)
    else unset.delete(key)
  }
  return layer
}

/** npm's project root for `.npmrc`: the nearest folder up from `cwd` with a package.json. */
function projectRoot(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return undefined
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}
