/**
 * `--debug`: what the model adapter asked over HTTP, for a failed turn's output. While recording,
 * the process's `fetch` is wrapped to note each request's method, URL, status (or why it failed)
 * and time to the answer's headers. The URL is shown as origin and path only: no query (a
 * provider's `?key=`), no user:password; headers (the API key) are never looked at.
 */
export interface HttpExchange {
  method: string
  /** `http://127.0.0.1:11434/v1/chat/completions`: origin and path, nothing else. */
  url: string
  /** The status of the answer, when one came. */
  status?: number
  /** Why no answer came (`ECONNREFUSED`, `aborted`…). */
  failure?: string
  /** Milliseconds to the answer's headers, or to the failure. */
  ms: number
}

export interface HttpRecorder {
  /** The exchanges since the last {@link HttpRecorder.take}, oldest first; clears them. */
  take(): HttpExchange[]
  /** Puts the process's `fetch` back. */
  stop(): void
}

/** Starts recording the process's HTTP requests made with `fetch`. */
export function recordHttp(): HttpRecorder {
  const original = globalThis.fetch
  let exchanges: HttpExchange[] = []
  const wrapped: typeof fetch = async (input, init) => {
    const started = performance.now()
    const exchange: HttpExchange = { method: (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(), url: shownUrl(input), ms: 0 }
    exchanges.push(exchange)
    try {
      const response = await original(input, init)
      exchange.status = response.status
      return response
    } catch (error) {
      exchange.failure = failureOf(error)
      throw error
    } finally {
      exchange.ms = Math.round(performance.now() - started)
    }
  }
  globalThis.fetch = wrapped
  return {
    take: () => {
      const taken = exchanges
      exchanges = []
      return taken
    },
    stop: () => {
      if (globalThis.fetch === wrapped) globalThis.fetch = original
    },
  }
}

/** `POST http://127.0.0.1:9/v1/chat/completions → ECONNREFUSED after 3 ms`, `… → HTTP 404 after 12 ms`. */
export function describeExchange(exchange: HttpExchange): string {
  const outcome = exchange.status !== undefined ? `HTTP ${exchange.status}` : (exchange.failure ?? 'no answer')
  return `${exchange.method} ${exchange.url} → ${outcome} after ${exchange.ms} ms`
}

function shownUrl(input: string | URL | Request): string {
  try {
    const url = new URL(input instanceof Request ? input.url : input)
    return `${url.origin}${url.pathname}`
  } catch {
    return '(an unparsable URL)'
  }
}

/** The innermost useful code of a fetch failure (undici puts `ECONNREFUSED` in `cause`). */
function failureOf(error: unknown): string {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code
    if (typeof code === 'string' && code !== '') return code
  }
  return error instanceof Error && error.name === 'AbortError' ? 'aborted' : 'failed'
}
