import { ModelError } from '../model.js'

/**
 * A request Node's fetch refused before connecting because of its port: the ports browsers block
 * as unsafe (6000, 6665–6669, 10080, 25, …; the WHATWG fetch spec's list), which undici blocks
 * too, failing with only `fetch failed` and a cause `bad port`. Said with what to do — the server
 * is fine, the port is what fetch will not use — and not retryable: every attempt fails the same.
 * Undefined for any other failure. `where` is the base URL as it may be shown.
 */
export function badPortFailure(error: unknown, where: string): ModelError | undefined {
  if (!(error instanceof Error) || !(error.cause instanceof Error) || error.cause.message !== 'bad port') return undefined
  const port = portOf(where)
  return new ModelError(
    'TRANSPORT',
    `Node's fetch refuses to connect to ${where}: ${port === undefined ? 'its port' : `port ${port}`} is one of the ports browsers block as unsafe (fetch failed: bad port). Serve the API on another port (8000, 8080, 11434…) or put a proxy in front of it, and change the adapter's baseURL.`,
    { cause: error, retryable: false },
  )
}

function portOf(where: string): string | undefined {
  try {
    return new URL(where).port || undefined
  } catch {
    return undefined
  }
}
