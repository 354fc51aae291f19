import type { CommandContext } from '../context.js'
import { CliErrorCodes, cliError } from '../errors.js'
import { ExitCode } from '../exit-codes.js'
import { registryClient } from '../marketplace/lookup.js'
import { shownUrl } from '../marketplace/npm-config.js'
import { SEARCH_MAX_MATCHES } from '../marketplace/search-pages.js'
import { progressLine } from '../marketplace/search-progress.js'
import { searchPackages, type CutSearch } from '../marketplace/search.js'
import { table } from '../table.js'
import { safeJson, safeText, safeValue } from '../terminal-safe.js'

/**
 * `bosun plugins search [words]`: Bosun plugins, adapters and stores on the registry the npm
 * configuration names (keywords `bosun-plugin`, `bosun-adapter`, `bosun-store`): name, version,
 * kind, hooks, weekly downloads when the registry gives them, "first-party" for `@bosun/`.
 * The table shows the first `SHOWN` (`--limit`, `--all`); --json lists every one unless --limit.
 */
export async function pluginsSearchCommand(ctx: CommandContext, words: string[], options: { json?: boolean; registry?: string; limit?: number; all?: boolean }): Promise<number> {
  if (options.limit !== undefined && options.all) throw cliError(CliErrorCodes.USAGE, 'give --limit <n> or --all, not both.')
  // Each package listed costs a request for its document (its hooks): a search near the cap
  // finds thousands, which took minutes to read for a table nobody scrolls. A script (--json)
  // still gets every one, as before.
  const limit = options.all ? undefined : options.limit ?? (options.json ? undefined : SHOWN)
  const client = registryClient(ctx, options.registry)
  const progress = options.json ? undefined : progressLine(ctx.err)
  let answer
  try {
    answer = await searchPackages(client, words, { ...(limit !== undefined && { limit }), ...(progress && { onProgress: (step) => progress.update(step) }) })
  } finally {
    progress?.clear()
  }
  const { results: found, matched, searched, unsearched, cut } = answer
  // Said on stderr (also with --json): the list lacks these scopes' packages. The client's own
  // message is not repeated: its advice is about the default registry and --registry.
  for (const skipped of unsearched) {
    const lines = skipped.scopes.map((scope) => `${scope}:registry`).join(', ')
    ctx.err.line(
      ctx.err.style.yellow(
        `${skipped.scopes.join(', ')} not searched (${skipped.code}): ${shownUrl(skipped.registry)} could not be asked${skipped.code === 'REGISTRY_AUTH_REQUIRED' ? ' without a login' : ''}. Its packages are not listed, the other registries' are. Check ${lines} in your .npmrc${skipped.code === 'REGISTRY_AUTH_REQUIRED' ? ' and its token' : ', and your network'}.`,
      ),
    )
  }
  // Also on stderr: the list is not all there is, and how to get the rest.
  for (const line of cutLines(cut, words)) ctx.err.line(ctx.err.style.yellow(line))
  if (options.json) {
    for (const result of found) ctx.out.line(safeJson(JSON.stringify(result)))
    return ExitCode.ok
  }
  // Names and descriptions are a registry's (anyone's) text: control characters are shown, never sent.
  const results = safeValue(found)
  // Every registry asked, not the default one alone: the packages of a scope's registry are in the list.
  const asked = searched.map(({ registry, scopes }) => `${shownUrl(registry)}${scopes.length > 0 ? ` (${scopes.join(', ')})` : ''}`)
  const where = asked.length > 1 ? `${asked.slice(0, -1).join(', ')} and ${asked.at(-1)}` : asked[0]!
  if (results.length === 0) {
    ctx.err.line(`No Bosun package on ${where}${words.length > 0 ? ` matches "${words.join(' ')}"` : ''}.`)
    ctx.err.line(ctx.err.style.dim('Packages are found by their keyword: "bosun-plugin", "bosun-adapter" or "bosun-store" (docs/marketplace.md).'))
    return ExitCode.ok
  }
  const s = ctx.out.style
  const rows = results.map((result) => [
    result.name,
    result.version,
    result.kind,
    result.hooks === undefined ? s.dim(result.kind === 'plugin' ? '?' : '-') : result.hooks.length === 0 ? s.dim('(none)') : result.hooks.join(', '),
    result.weeklyDownloads === undefined ? s.dim('-') : result.weeklyDownloads.toLocaleString('en-US'),
    result.firstParty ? s.green('first-party') : '',
    result.description ?? '',
  ])
  for (const line of table(['PACKAGE', 'VERSION', 'KIND', 'HOOKS', 'WEEKLY', 'SOURCE', 'DESCRIPTION'], rows, s, ctx.out.columns, 120)) ctx.out.line(line)
  const more = matched > results.length ? `${results.length.toLocaleString('en-US')} of ${matched.toLocaleString('en-US')}` : String(results.length)
  ctx.err.line(s.dim(`${more} on ${where}.${matched > results.length ? ` More: --limit <n> or --all (each one listed is a request for its hooks).` : ''} Before adding one: bosun plugins info <package>`))
  return ExitCode.ok
}

/** How many packages the table shows when neither --limit nor --all is given. */
export const SHOWN = 50

/**
 * One line per registry whose matches for a query were more than `SEARCH_MAX_MATCHES`: how many
 * were left unread (when the registry says), and how to narrow the search.
 */
function cutLines(cut: readonly CutSearch[], words: readonly string[]): string[] {
  const registries = [...new Set(cut.map((query) => query.registry))]
  const narrower = `bosun plugins search ${words.length > 0 ? `${safeText(words.join(' '))} <another word>` : '<words>'}`
  return registries.map((registry) => {
    const unread = cut
      .filter((query) => query.registry === registry)
      .map(({ query, read, total }) =>
        total === undefined
          ? `more than ${read.toLocaleString('en-US')} for "${safeText(query)}" (it does not say how many)`
          : `${(total - read).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} for "${safeText(query)}" left unread`,
      )
    return `${shownUrl(registry)} has more matches than a search reads (the first ${SEARCH_MAX_MATCHES.toLocaleString('en-US')} of each query): ${unread.join('; ')}. Bosun packages among those left unread are not listed: narrow the search with more words (${narrower}), or name the package: bosun plugins info <name>.`
  })
}
