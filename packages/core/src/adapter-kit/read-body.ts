import { ErrorCodes } from '../errors.js'
import { ModelError, type ModelErrorCode } from '../model.js'

/** The most of an HTTP error body an adapter reads: enough for any provider's error JSON. */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024

/** The most of a non-streamed JSON answer an adapter reads (a server that ignored `stream: true`). */
export const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024

/**
 * The body of `response` as UTF-8 text, read incrementally and **never more than `maxBytes`**
 * (counted after `fetch` has decoded `Content-Encoding`): a 0.7 MB gzip body can inflate to
 * 700 MB, and `response.text()` would hold all of it. Past the cap the body is cancelled (the
 * connection closes) and a `ModelError` `RESPONSE_TOO_LARGE` is thrown, not retryable: the same
 * request would get the same answer.
 *
 * `what` names the body for the message: `The error body of HTTP 500 from Anthropic`.
 */
export async function readBodyText(response: Response, maxBytes: number, what: string): Promise<string> {
  if (response.body === null) return ''
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let size = 0
  let text = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return text + decoder.decode()
      size += value.byteLength
      if (size > maxBytes) throw tooLarge(what, maxBytes, response.status)
      text += decoder.decode(value, { stream: true })
    }
  } finally {
    // Done or not, nothing more is read: release (or close) the connection.
    void reader.cancel().catch(() => {})
  }
}

/**
 * `response` with its body limited to `maxBytes`: reading past them errors the body with
 * `RESPONSE_TOO_LARGE` and cancels the original (closing the connection). For a body that code
 * outside Bosun reads (an AI SDK provider reading an error body with `response.text()`).
 */
export function capBody(response: Response, maxBytes: number, what: string): Response {
  if (response.body === null) return response
  let size = 0
  const cap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength
      if (size > maxBytes) controller.error(tooLarge(what, maxBytes, response.status))
      else controller.enqueue(chunk)
    },
  })
  const { status, statusText, headers } = response
  return new Response(response.body.pipeThrough(cap), { status, statusText, headers })
}

function tooLarge(what: string, maxBytes: number, status: number): ModelError {
  return new ModelError(
    ErrorCodes.RESPONSE_TOO_LARGE as ModelErrorCode,
    `${what} is larger than ${formatBytes(maxBytes)}; reading stopped there and the connection was closed. ` +
      'The server (or a proxy in front of it) is misbehaving: check baseURL.',
    { status, retryable: false },
  )
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`
}
