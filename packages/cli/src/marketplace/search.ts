import { bosunManifest, KIND_KEYWORDS, kindOfKeywords, type BosunKind } from './manifest.js'
import { registryFor } from './npm-config.js'
import type { RegistryClient, SearchHit } from './registry-client.js'
import { searchAllPages, type CutQuery, type PagingOptions } from './search-pages.js'

/** One package `bosun plugins search` shows. */
export interface SearchResult {
  name: string
  version: string
  description: string | undefined
  kind: BosunKind
  /** From the version's manifest (`bosun.hooks`); `undefined` when it does not say or could not be read. */
  hooks: string[] | undefined
  /** Weekly downloads, when the registry gives them (npmjs does; Verdaccio does not). */
  weeklyDownloads: number | undefined
  firstParty: boolean
}

/** A scope's registry the search could not ask: its packages are missing from the results. */
export interface Unsearched {
  /** The registry's URL, as the npm configuration gives it (printed through `shownUrl`). */
  registry: string
  /** The scopes it serves (`@acme`). */
  scopes: string[]
  /** `REGISTRY_UNREACHABLE`, `REGISTRY_AUTH_REQUIRED` or `REGISTRY_ERROR`. */
  code: string
}

/** A registry that had more matches for a query than the search reads (`SEARCH_MAX_MATCHES`). */
export interface CutSearch extends CutQuery {
  /** The registry's URL, as the npm configuration gives it. */
  registry: string
}

/** A registry a search asked, and the scopes it serves (none for the default registry, which serves the rest). */
export interface Searched {
  registry: string
  scopes: string[]
}

/** What a search found, the registries it asked, the scopes' registries it could not ask, and the queries it cut short. */
export interface SearchAnswer {
  /** The Bosun packages found, in the order shown; with `limit`, the first `limit` of them. */
  results: SearchResult[]
  /** How many Bosun packages were found in all (more than `results` holds when `limit` cut them). */
  matched: number
  /** The default registry first, then each scope's registry that answered. */
  searched: Searched[]
  unsearched: Unsearched[]
  /** Queries with more matches than were read: Bosun packages among the rest are not in `results`. */
  cut: CutSearch[]
}

/** The errors of a scope's registry that leave its scopes out of a search instead of failing it. */
const SCOPE_FAILURES = new Set(['REGISTRY_UNREACHABLE', 'REGISTRY_AUTH_REQUIRED', 'REGISTRY_ERROR'])

/** How many package documents are read at once for their hooks. */
const CONCURRENCY = 6

/** Where a search is, for a progress line: the matches read so far, then the documents read for hooks. */
export type SearchProgress = { stage: 'searching'; matches: number } | { stage: 'reading'; done: number; of: number }

export interface SearchOptions extends Omit<PagingOptions, 'onPage'> {
  /**
   * Only the first `limit` packages (in the order shown) are returned and have their documents
   * read: a search near the cap finds thousands, and each document is one more request.
   */
  limit?: number
  onProgress?: (progress: SearchProgress) => void
}

/**
 * Bosun packages on the registry matching `words`. The registry is asked twice over: with the
 * words as plain text (private registries such as Verdaccio match only name and description and
 * ignore `keywords:`), and with `keywords:<kw>` qualifiers (npmjs finds packages by keyword that
 * way); the answers are merged and kept only when the package itself carries `bosun-plugin`,
 * `bosun-adapter` or `bosun-store`. The hooks come from the hit when it carries the `bosun` field,
 * else from the version's document, read only for the packages returned (`limit`). Every scoped
 * registry of the npm configuration (`@acme:registry=…`) is searched too, and a package is taken
 * only from the registry that serves its name (as npm would install it). Each query is read page
 * after page up to `SEARCH_MAX_MATCHES` matches; a query cut there is in `cut`.
 */
export async function searchPackages(client: RegistryClient, words: readonly string[], options: SearchOptions = {}): Promise<SearchAnswer> {
  const { limit, onProgress, ...paging } = options
  // In lower case, as npm search sends its terms: Verdaccio matches the text case-sensitively
  // (`search Guard` found no bosun-plugin-word-guard there; package names are lower-case), npmjs
  // ignores case.
  const text = words.join(' ').trim().toLowerCase()
  const plain = text === '' ? 'bosun' : text
  const queries = [plain, ...Object.values(KIND_KEYWORDS).map((keyword) => `keywords:${keyword}${text ? ` ${text}` : ''}`)]
  const registries = [...new Set([client.config.registry, ...client.config.scopes.values()])]
  const unsearched = new Map<string, Unsearched>()
  // Matches read by every query so far: the progress line's counter while the registries are asked.
  const readBy = new Map<string, number>()
  const onPage = onProgress && ((key: string, read: number) => {
    readBy.set(key, read)
    onProgress({ stage: 'searching', matches: [...readBy.values()].reduce((sum, count) => sum + count, 0) })
  })
  const answers = await Promise.all(
    registries.flatMap((registry) =>
      queries.map(async (query) => {
        try {
          const { hits, cut } = await searchAllPages(client, query, registry, { ...paging, ...(onPage && { onPage: (read: number) => onPage(`${registry} ${query}`, read) }) })
          const keywordHits = query !== plain && hits.some((hit) => kindOfKeywords(hit.package.keywords) !== undefined)
          return { registry, query, keywordHits, hits: hits.filter((hit) => registryFor(client.config, hit.package.name) === registry), cut: cut && { ...cut, registry } }
        } catch (error) {
          // A scope's registry that cannot be searched (a company registry off the VPN, or one
          // that needs a login) leaves its scopes out, said so — it no longer fails the whole
          // search, which left no way to search the default registry short of editing .npmrc
          // (--registry replaces the default registry only). The default registry's failure is
          // still the command's.
          const code = (error as { code?: string }).code
          if (registry === client.config.registry || code === undefined || !SCOPE_FAILURES.has(code)) throw error
          if (!unsearched.has(registry)) unsearched.set(registry, { registry, scopes: scopesServedBy(client, registry), code })
          return { registry, query, keywordHits: false, hits: [], cut: undefined }
        }
      }),
    ),
  )
  // A registry said to be unsearched lists none of its packages, not the pages that came before
  // the failure (its other queries, or a query's first pages): "its packages are not listed" holds.
  const answered = answers.filter((answer) => !unsearched.has(answer.registry))
  const hits = new Map<string, SearchHit & { version: string }>()
  for (const hit of answered.flatMap((answer) => answer.hits)) {
    // npmjs gives `version`; Verdaccio's own packages come with `dist-tags.latest` instead. A hit
    // with neither is skipped: a registry's answer is not trusted to be complete.
    const version = hit.package.version ?? hit.package['dist-tags']?.latest
    if (typeof version !== 'string' || hits.has(hit.package.name) || kindOfKeywords(hit.package.keywords) === undefined) continue
    hits.set(hit.package.name, { ...hit, version })
  }
  const found = [...hits.values()].map((hit): SearchResult => ({
    name: hit.package.name,
    version: hit.version,
    description: typeof hit.package.description === 'string' ? hit.package.description : undefined,
    kind: kindOfKeywords(hit.package.keywords)!,
    hooks: undefined,
    weeklyDownloads: typeof hit.downloads?.weekly === 'number' ? hit.downloads.weekly : undefined,
    firstParty: hit.package.name.startsWith('@bosun/'),
  }))
  // First-party first, then by name: the ones made with Bosun lead.
  found.sort((a, b) => Number(b.firstParty) - Number(a.firstParty) || a.name.localeCompare(b.name))
  const results = limit === undefined ? found : found.slice(0, limit)
  // npmjs's and Verdaccio's hits carry no `bosun` field (only name, version, description,
  // keywords…): a registry whose hits do spares the document.
  const unread = results.filter((result) => {
    const bosun = hits.get(result.name)!.package.bosun
    if (typeof bosun !== 'object' || bosun === null) return true
    const manifest = bosunManifest({ ...hits.get(result.name)!.package, name: result.name, version: result.version })
    result.hooks = manifest.hooks
    result.kind = manifest.kind ?? result.kind
    return false
  })
  let done = 0
  if (unread.length > 0) onProgress?.({ stage: 'reading', done, of: unread.length })
  await eachLimited(unread, CONCURRENCY, async (result) => {
    try {
      const version = (await client.packument(result.name)).versions[result.version]
      if (version) {
        const manifest = bosunManifest(version)
        result.hooks = manifest.hooks
        result.kind = manifest.kind ?? result.kind
      }
    } catch {
      // A document that cannot be read leaves the hooks unknown; the hit is still shown.
    }
    onProgress?.({ stage: 'reading', done: ++done, of: unread.length })
  })
  const searched = registries.filter((registry) => !unsearched.has(registry)).map((registry) => ({ registry, scopes: registry === client.config.registry ? [] : scopesServedBy(client, registry) }))
  // A registry that answers a `keywords:` query with Bosun packages (npmjs) finds by keyword every
  // Bosun package the words match: its plain-text query (there for registries that ignore
  // `keywords:`) adds none, so that query cut short hides nothing and is not said — npmjs has
  // thousands of matches for a word such as "guard".
  const byKeyword = new Set(answered.filter((answer) => answer.keywordHits).map((answer) => answer.registry))
  const cut = answered.flatMap((answer) => (answer.cut && !(answer.query === plain && byKeyword.has(answer.registry)) ? [answer.cut] : []))
  return { results, matched: found.length, searched, unsearched: [...unsearched.values()], cut }
}

/** The scopes the npm configuration sends to `registry` (`@acme`). */
function scopesServedBy(client: RegistryClient, registry: string): string[] {
  return [...client.config.scopes].filter(([, url]) => url === registry).map(([scope]) => scope)
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!)
  })
  await Promise.all(lanes)
}
