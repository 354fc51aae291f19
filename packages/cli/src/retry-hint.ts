import { candidatePackages } from '@bosun/core/config'

const RETRY_PACKAGE = '@bosun/plugin-retry'

/**
 * Codes of a provider's answer the retry plugin retries by default: 429 (`RATE_LIMIT`) and 5xx
 * (`SERVER`). Not every code it retries: a `TRANSPORT` error is most often a wrong `baseURL` or a
 * server that is not running, which no retry fixes, and the hint would send the user the wrong way.
 */
const HINTED = new Set(['RATE_LIMIT', 'SERVER'])

/**
 * Whether the config's `plugins` (as written) name the retry plugin: by its config name (`retry`),
 * its package, or — a TypeScript config that imports it — the plugin object, named `retry`.
 */
export function namesRetryPlugin(plugins: readonly unknown[] | undefined): boolean {
  return (plugins ?? []).some((entry) => {
    const spec: unknown = Array.isArray(entry) ? entry[0] : entry
    if (typeof spec === 'string') return spec === RETRY_PACKAGE || candidatePackages(spec, 'plugin').includes(RETRY_PACKAGE)
    return typeof spec === 'object' && spec !== null && (spec as { name?: unknown }).name === 'retry'
  })
}

/**
 * The line said after a turn that failed on a provider's 429 or 5xx when the config has no retry
 * plugin: without it one such answer ends the turn, and nothing said that the plugin that retries
 * them exists. Undefined when the config has it (it retried, and gave up), or when a retry would
 * not help (`retryable: false`, such as OpenAI's `insufficient_quota`).
 */
export function retryHint(error: { code: string; retryable?: boolean }, hasRetryPlugin: boolean): string | undefined {
  if (hasRetryPlugin || error.retryable !== true || !HINTED.has(error.code)) return undefined
  return 'The retry plugin retries these (a 429 or 5xx answer), waiting between attempts; the config has none: add "retry" to its "plugins" (it comes with bosun), or run: bosun plugins add retry'
}
