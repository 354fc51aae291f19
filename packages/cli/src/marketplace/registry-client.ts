import { BosunError } from '@bosun/core'
import { marketplaceError } from './errors.js'
import { authorizationFor, registryFor, shownUrl, unsetTokenVariables, type NpmConfig } from './npm-config.js'

/** A version document of a package, as the registry serves it (`GET /<name>` → `versions[v]`). */
export type VersionManifest = Record<string, any> & { name: string; version: string }

/** A registry document: every version, and the dist-tags. */
export interface Packument {
  name: string
  'dist-tags': Record<string, string>
  versions: Record<string, VersionManifest>
}

/** One hit of `GET /-/v1/search`. */
export interface SearchHit {
  package: { name: string; version?: string; 'dist-tags'?: Record<string, string>; description?: string; keywords?: string[]; bosun?: unknown }
  downloads?: { weekly?: number; monthly?: number }
}

/** One page of a search. */
export interface SearchPage {
  /** How many objects the page held, usable or not: where the next page starts. */
  size: number
  /** Its hits that name a package. */
  hits: SearchHit[]
  /**
   * `total` as the registry gives it: npmjs counts every match of the query, Verdaccio 6.8 only
   * the page's hits — so it says there is more only when it is larger than what was read.
   */
  total: number | undefined
}

const MAX_REDIRECTS = 5
/** A package document or tarball larger than this is refused (a registry is not trusted to be small). */
const MAX_BYTES = 32 * 1024 * 1024

/**
 * Reads the npm registry the user's npm configuration names: search, package documents and
 * tarballs. The auth token goes only to the URL its `.npmrc` line names, and never follows a
 * redirect (a redirected request is sent again without it); no token or URL credential is ever
 * part of an error message.
 */
export class RegistryClient {
  constructor(
    readonly config: NpmConfig,
    /** `--registry`: replaces the configured default registry (scoped registries still apply). */
    registryOverride?: string,
  ) {
    if (registryOverride !== undefined) this.config = { ...config, registry: registryOverride.endsWith('/') ? registryOverride : `${registryOverride}/` }
  }

  /**
   * One page of `GET /-/v1/search?text=…&size=…&from=…` on `registry` (default: the default
   * registry). npmjs and Verdaccio answer at most 250 hits a page; `search-pages.ts` asks for the
   * next ones.
   */
  async search(text: string, registry = this.config.registry, size = 250, from = 0): Promise<SearchPage> {
    const url = new URL(`-/v1/search?${new URLSearchParams({ text, size: String(size), from: String(from) })}`, registry).href
    let body: { objects?: SearchHit[]; total?: unknown }
    try {
      body = (await this.json(url, 'search')) as { objects?: SearchHit[]; total?: unknown }
    } catch (error) {
      if ((error as { code?: string }).code !== 'PACKAGE_NOT_FOUND') throw error
      throw marketplaceError('REGISTRY_ERROR', `${shownUrl(registry)} has no search API (GET /-/v1/search answered 404). Search another registry with --registry, or name the package: bosun plugins info <name>.`)
    }
    const objects = Array.isArray(body?.objects) ? body.objects : []
    return {
      size: objects.length,
      hits: objects.filter((hit) => typeof hit?.package?.name === 'string'),
      total: typeof body?.total === 'number' && Number.isFinite(body.total) ? body.total : undefined,
    }
  }

  /** The package's document; `PACKAGE_NOT_FOUND` when the registry has no such name. */
  async packument(name: string): Promise<Packument> {
    const registry = registryFor(this.config, name)
    const url = new URL(name.startsWith('@') ? name.replace('/', '%2f') : name, registry).href
    const body = (await this.json(url, name)) as Packument
    if (typeof body !== 'object' || body === null || typeof body.versions !== 'object') {
      throw marketplaceError('REGISTRY_ERROR', `${shownUrl(registry)} answered for ${name} with something that is not a package document.`)
    }
    return body
  }

  /** The tarball at `url` (a version's `dist.tarball`), as bytes. */
  async tarball(url: string, name: string): Promise<Buffer> {
    const response = await this.get(url, name, 'application/octet-stream')
    return Buffer.from(await limitedBody(response, url, name))
  }

  private async json(url: string, what: string): Promise<unknown> {
    const response = await this.get(url, what, 'application/json')
    const text = new TextDecoder().decode(await limitedBody(response, url, what))
    try {
      return JSON.parse(text)
    } catch {
      throw marketplaceError('REGISTRY_ERROR', `${shownUrl(url)} did not answer JSON (status ${response.status}). Is it an npm registry?`)
    }
  }

  /** GET with the credential for `url`; redirects followed by hand, each one without credentials. */
  private async get(url: string, what: string, accept: string): Promise<Response> {
    let current = url
    let authorization = authorizationFor(this.config, url)
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      refuseUrlCredentials(current, hop > 0)
      let response: Response
      try {
        response = await fetch(current, {
          redirect: 'manual',
          headers: { accept, ...(authorization ? { authorization } : {}) },
          signal: AbortSignal.timeout(60_000),
        })
      } catch (error) {
        throw marketplaceError(
          'REGISTRY_UNREACHABLE',
          `cannot reach the registry at ${shownUrl(new URL('/', current).href)} (${reason(error)}). Check the "registry" in your .npmrc (or --registry) and your network.`,
        )
      }
      if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
        await response.body?.cancel()
        current = new URL(response.headers.get('location')!, current).href
        authorization = undefined // a credential is for the URL it was configured for, never for where it is sent on to
        continue
      }
      if (response.ok) return response
      await response.body?.cancel()
      const origin = shownUrl(new URL('/', current).href)
      if (response.status === 401 || response.status === 403) {
        // With a credential sent, "add a token" sent the user after one their .npmrc already
        // gives: it is that one the registry refused (expired, revoked, or without access).
        // A token line whose ${VAR} is not set sent nothing: the variable is what is missing.
        const unset = hop === 0 && authorization === undefined ? unsetTokenVariables(this.config, url) : []
        throw marketplaceError(
          'REGISTRY_AUTH_REQUIRED',
          unset.length > 0
            ? `${origin} refused ${what} (${response.status}): it needs a login, and the token your .npmrc gives for it is ${unset.map((name) => `\${${name}}`).join(', ')}, which ${unset.length === 1 ? 'is' : 'are'} not set. Set ${unset.join(', ')} where bosun runs (export ${unset[0]}=…), or log in (npm login --registry ${origin}).`
            : authorization === undefined
            ? `${origin} refused ${what} (${response.status}): it needs a login. Add a token for it to your .npmrc (npm login --registry ${origin}), or use a registry you can read.`
            : `${origin} refused ${what} (${response.status}) with the token your .npmrc gives for it (not shown): it is expired, revoked or without access to this package. Log in again (npm login --registry ${origin}) or ask for access.`,
        )
      }
      if (response.status === 404) {
        throw marketplaceError('PACKAGE_NOT_FOUND', `${what} is not on the registry ${origin}. Check the name (bosun plugins search <words> lists what there is).`, { name: what })
      }
      throw marketplaceError('REGISTRY_ERROR', `${origin} answered ${response.status} for ${what}. Try again later, or check the registry.`)
    }
    throw marketplaceError('REGISTRY_ERROR', `${shownUrl(url)} redirected more than ${MAX_REDIRECTS} times.`)
  }
}

/**
 * A URL with a user name or password in it is never fetched: `fetch` refuses it with an error that
 * quotes the whole URL, password included, which reached the terminal. A registry's credential
 * belongs in `.npmrc` (`//host/:_authToken=…`), where it is sent to that registry only.
 */
function refuseUrlCredentials(url: string, redirected: boolean): void {
  const parsed = new URL(url)
  if (parsed.username === '' && parsed.password === '') return
  const origin = shownUrl(new URL('/', parsed).href)
  throw marketplaceError(
    'REGISTRY_ERROR',
    redirected
      ? `the registry redirected to ${origin} with a user name or password in the URL; refused (not shown). Check the registry, or use another one.`
      : `the registry URL ${origin} has a user name or password in it (not shown), which is never sent. Remove it from the URL ("registry" in your .npmrc, or --registry) and give the credential in .npmrc: //${parsed.host}/:_authToken=\${NPM_TOKEN}.`,
  )
}

async function limitedBody(response: Response, url: string, what: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > MAX_BYTES) throw marketplaceError('REGISTRY_ERROR', `${shownUrl(url)} is larger than ${MAX_BYTES / 1024 / 1024} MiB; refused.`)
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length
      if (size > MAX_BYTES) throw marketplaceError('REGISTRY_ERROR', `${shownUrl(url)} is larger than ${MAX_BYTES / 1024 / 1024} MiB; refused.`)
      chunks.push(chunk)
    }
  } catch (error) {
    if (error instanceof BosunError) throw error
    // fetch resolves once the headers are in: a connection dropped (or the 60 s reached) while
    // the body is read fails here with undici's bare "terminated", which the CLI printed as a bug
    // in bosun. It is the registry that could not be read, as when it cannot be reached.
    throw marketplaceError(
      'REGISTRY_UNREACHABLE',
      `the registry at ${shownUrl(new URL('/', url).href)} stopped answering ${what} part way (${reason(error)}). Try again; if it keeps happening, check the "registry" in your .npmrc (or --registry) and your network.`,
    )
  }
  return Buffer.concat(chunks)
}

function reason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in 60 s'
  // undici wraps the socket's error (ECONNREFUSED, ENOTFOUND…), sometimes in an AggregateError.
  for (let current: any = error, depth = 0; current !== undefined && current !== null && depth < 5; current = current.cause, depth++) {
    if (typeof current.code === 'string' && !current.code.startsWith('UND_ERR')) return current.code
    const first = Array.isArray(current.errors) ? current.errors.find((inner: any) => typeof inner?.code === 'string') : undefined
    if (first) return first.code
  }
  const cause = (error as { cause?: unknown }).cause
  return withoutUrlCredentials(cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error))
}

/** `text` with every URL's `user:password@` left out: an error's own message may quote the URL it failed on. */
function withoutUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1')
}
