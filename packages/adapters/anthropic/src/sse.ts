import { excerpt, ModelError } from '@bosun/core'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { AnthropicEvent } from './stream.js'

/** An event longer than this (no blank line in 16 MiB) is a broken stream, not a big event: memory stays bounded. */
const MAX_EVENT_BYTES = 16 * 1024 * 1024

/**
 * The events of a server-sent event stream, parsed with `eventsource-parser` and then as JSON.
 * Bytes are decoded as a UTF-8 stream, so a character split across network chunks arrives whole.
 * A payload that is not a JSON object with a string `type` is a `MALFORMED_RESPONSE`, quoting its
 * start with `secret` (the key, in case the server echoes it) masked before the cut. `label`: the
 * server as messages name it (`Anthropic`, `The server at <host>`).
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>, label: string, secret?: string): AsyncGenerator<AnthropicEvent> {
  const pending: EventSourceMessage[] = []
  let tooLong = false
  // Until the parser finds an event or a comment, the body's start is kept: a body with neither
  // (an HTML page a proxy labels text/event-stream) is not an event stream, and the error quotes it.
  let sawSse = false
  let head = ''
  const parser = createParser({
    maxBufferSize: MAX_EVENT_BYTES,
    onEvent: (message) => {
      sawSse = true
      pending.push(message)
    },
    onComment: () => {
      sawSse = true
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') tooLong = true
    },
  })
  const decoder = new TextDecoder()
  // The caller owns the connection: it aborts the request (which cancels the body) when it stops.
  const reader = body.getReader()
  while (true) {
    const { done, value } = await reader.read()
    const text = done ? decoder.decode() : decoder.decode(value, { stream: true })
    if (!sawSse && head.length < 1024) head += text.slice(0, 1024)
    parser.feed(text)
    if (tooLong) throw new ModelError('MALFORMED_RESPONSE', `${label} sent an event longer than 16 MiB; the stream looks broken.`)
    for (const message of pending.splice(0)) yield parse(message, label, secret)
    if (done) {
      // A last event the server did not close with a blank line is taken too, if it is complete
      // JSON; a cut-off one is left out, and the decoder reports the stream as incomplete.
      parser.feed('\n\n')
      for (const message of pending.splice(0)) {
        const event = tryParse(message, label)
        if (event !== undefined) yield event
      }
      if (!sawSse && head.trim() !== '') {
        throw new ModelError('MALFORMED_RESPONSE', `${label} answered with a body that is not an event stream (check that baseURL points at the API): ${excerpt(head.trim(), 200, secret)}`)
      }
      return
    }
  }
}

function tryParse(message: EventSourceMessage, label: string): AnthropicEvent | undefined {
  try {
    return parse(message, label, undefined)
  } catch {
    return undefined
  }
}

function parse(message: EventSourceMessage, label: string, secret: string | undefined): AnthropicEvent {
  let value: unknown
  try {
    value = JSON.parse(message.data)
  } catch {
    // No cause: V8's SyntaxError quotes a piece of the data, which may be a piece of an echoed key.
    throw new ModelError('MALFORMED_RESPONSE', `${label} sent an event whose data is not JSON: ${excerpt(message.data, 120, secret)}`)
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new ModelError('MALFORMED_RESPONSE', `${label} sent an event without a "type": ${excerpt(message.data, 120, secret)}`)
  }
  return value as AnthropicEvent
}
