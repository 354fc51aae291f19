import type { BosunEventMap, SessionEvent } from '@bosun/core'

/**
 * A step the provider ended `content-filter` — Anthropic's `refusal`, OpenAI's `content_filter` —
 * ends a turn that completes, often with no text at all: said in words by `run` and `chat`, so an
 * empty answer is not taken for the model having nothing to say.
 */
export function refusalNote(event: SessionEvent, answered: boolean): string | undefined {
  if (event.type !== 'step/end' || (event.data as BosunEventMap['step/end']).finish !== 'content-filter') return undefined
  return `the provider stopped the answer (content-filter: a refusal or its content filter); ${answered ? 'what it wrote is above' : 'nothing was answered'}`
}
