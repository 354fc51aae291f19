import { ErrorCodes } from '../errors.js'
import { ModelError, type ModelErrorCode } from '../model.js'
import { capBody, MAX_ERROR_BODY_BYTES } from './read-body.js'

/**
 * `fetch` for a request that carries credentials: redirects are **not followed**. `fetch` would
 * follow a `307 Location: http://elsewhere/…` and send the `Authorization` / `x-api-key` header
 * and every custom header along to whatever origin the server named — the key of the account to a
 * stranger. Here any 3xx with a `Location` cancels its body and throws a `ModelError`
 * `PROVIDER_REDIRECT` (not retryable) naming the location's **origin** only (a redirect URL may
 * carry a token in its path or query). Same-origin redirects are refused too: the fix is the same,
 * pointing the adapter's base URL where the server now lives. The body of any other failed
 * response is capped at {@link MAX_ERROR_BODY_BYTES} (`RESPONSE_TOO_LARGE` past it), whoever reads it.
 *
 * Same signature as `fetch`, so it can be given to an AI SDK provider:
 * `createOpenAI({ fetch: fetchWithoutRedirects })`.
 */
export async function fetchWithoutRedirects(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, { ...init, redirect: 'manual' })
  const location = response.headers.get('location')
  const from = new URL(input instanceof Request ? input.url : input)
  if (response.status >= 300 && response.status <= 399 && location !== null) {
    void response.body?.cancel().catch(() => {})
    throw redirectError(from, response.status, location)
  }
  return response.ok ? response : capBody(response, MAX_ERROR_BODY_BYTES, `The error body of HTTP ${response.status} from ${from.host}`)
}

function redirectError(from: URL, status: number, location: string): ModelError {
  let target: string
  try {
    const origin = new URL(location, from).origin
    target = origin === 'null' ? 'a location without an origin' : origin // data:, file:…
  } catch {
    target = 'an unparsable location'
  }
  const where = target === from.origin ? `another path of the same origin (${target})` : target
  return new ModelError(
    ErrorCodes.PROVIDER_REDIRECT as ModelErrorCode,
    `The server at ${from.host} answered HTTP ${status} redirecting to ${where}. Bosun does not follow redirects, so that the API key and ` +
      'headers reach only the configured server: if the new location is the right one, set baseURL to it.',
    { status, retryable: false },
  )
}
