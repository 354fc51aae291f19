import type { RegistryClient, SearchHit } from './registry-client.js'

/** How many hits a search page asks for: the most npmjs and Verdaccio give (they cap `size` at 250). */
export const SEARCH_PAGE_SIZE = 250
/**
 * How many matches of one query are read at most. A query with more is cut there and said so:
 * every page is a request, and every Bosun package listed is one more document read for its hooks
 * (npmjs also refuses offsets past 10,000).
 */
export const SEARCH_MAX_MATCHES = 1000

export interface PagingOptions {
  /** Hits asked for per page (default `SEARCH_PAGE_SIZE`). */
  pageSize?: number
  /** Matches read per query at most (default `SEARCH_MAX_MATCHES`). */
  maxMatches?: number
  /** Called after each page a query read, with how many of its matches were read so far. */
  onPage?: (read: number) => void
}

/** A query the registry had more matches for than were read. */
export interface CutQuery {
  /** The search text (`keywords:bosun-plugin guard`). */
  query: string
  /** How many matches were read. */
  read: number
  /** How many the registry says it has in all, when it says (npmjs does, Verdaccio does not). */
  total: number | undefined
}

/** Every hit of a query, page after page, each package once, in the registry's order. */
export interface PagedHits {
  hits: SearchHit[]
  /** Set when the query was cut at `maxMatches` with more matches left on the registry. */
  cut: CutQuery | undefined
}

/**
 * Asks `registry` for `query` a page at a time (`from`), until the results end or `maxMatches` are
 * read. One search page used to be all there was: a query with more than 250 matches silently
 * lost the rest. A package met again on a later page (the results shifted between requests:
 * something was published) keeps its first place; a page with no package not already met ends
 * the paging, since a registry that ignores `from` would answer the first page again until the cap.
 *
 * A page shorter than asked for used to end the paging; but a registry that gives fewer hits a
 * page than npmjs and Verdaccio (100, say) answers every page short, and the search stopped after
 * its first page without a word. A short page now ends the paging only when the registry's total
 * counts every match and all are read (npmjs), or when it is shorter than the registry's own page
 * size, learned from a short page that the next one followed with more. Otherwise the next page
 * is asked for: the paging ends when one holds nothing new.
 */
export async function searchAllPages(client: RegistryClient, query: string, registry: string, options: PagingOptions = {}): Promise<PagedHits> {
  const pageSize = options.pageSize ?? SEARCH_PAGE_SIZE
  const maxMatches = options.maxMatches ?? SEARCH_MAX_MATCHES
  const seen = new Set<string>()
  const hits: SearchHit[] = []
  let read = 0
  /** The most hits this registry answers a page, once a short page was followed by more. */
  let cap: number | undefined
  /** The size of the previous page when it was short: the registry's page size if this one holds more. */
  let short: number | undefined
  for (;;) {
    const size = Math.min(pageSize, maxMatches - read)
    const page = await client.search(query, registry, size, read)
    const fresh = page.hits.filter((hit) => !seen.has(hit.package.name) && seen.add(hit.package.name))
    hits.push(...fresh)
    read += page.size
    options.onPage?.(read)
    if (page.size === 0 || fresh.length === 0) return { hits, cut: undefined }
    if (short !== undefined) cap = Math.max(cap ?? 0, short)
    short = undefined
    if (read >= maxMatches) {
      // A full last page does not say whether there is more: npmjs's total does when it is larger
      // than what was read; otherwise one more hit is asked for.
      const total = page.total !== undefined && page.total > read ? page.total : undefined
      const more = total !== undefined || (await client.search(query, registry, 1, read)).size > 0
      return { hits, cut: more ? { query, read, total } : undefined }
    }
    if (page.size >= Math.min(size, cap ?? size)) continue
    // Short. A total past the first page counts every match (Verdaccio's counts the page's hits).
    const totalOfAll = page.total !== undefined && (page.total > read || page.total > page.size)
    if (cap !== undefined || (totalOfAll && page.total! <= read)) return { hits, cut: undefined }
    short = page.size
  }
}
