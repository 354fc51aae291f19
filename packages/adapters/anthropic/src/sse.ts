import { ModelError } from '@bosun/core'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { AnthropicEvent } from './stream.js'

/**
 * The events of a server-sent event stream, parsed with `eventsource-parser` and then as JSON.
 * Bytes are decoded as a UTF-8 stream, so a character split across network chunks arrives whole.
 * A payload that is not a JSON object with a string `type` is a `MALFORMED_RESPONSE`.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<AnthropicEvent> {
  const pending: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (message) => pending.push(message) })
  const decoder = new TextDecoder()
  // The caller owns the connection: it aborts the request (which cancels the body) when it stops.
  const reader = body.getReader()
  while (true) {
    const { done, value } = await reader.read()
    parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }))
    for (const message of pending.splice(0)) yield parse(message)
    if (done) {
      // A last event the server did not close with a blank line is taken too, if it is complete
      // JSON; a cut-off one is left out, and the decoder reports the stream as incomplete.
      parser.feed('\n\n')
      for (const message of pending.splice(0)) {
        const event = tryParse(message)
        if (event !== undefined) yield event
      }
      return
    }
  }
}

function tryParse(message: EventSourceMessage): AnthropicEvent | undefined {
  try {
    return parse(message)
  } catch {
    return undefined
  }
}

function parse(message: EventSourceMessage): AnthropicEvent {
  let value: unknown
  try {
    value = JSON.parse(message.data)
  } catch (error) {
    throw new ModelError('MALFORMED_RESPONSE', `Anthropic sent an event whose data is not JSON: ${excerpt(message.data)}`, { cause: error })
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new ModelError('MALFORMED_RESPONSE', `Anthropic sent an event without a "type": ${excerpt(message.data)}`)
  }
  return value as AnthropicEvent
}

function excerpt(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text
}
