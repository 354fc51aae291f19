// Test-only model adapters (excluded from the build): raw chunk lists played back as model streams.
import type { ModelAdapter, ModelChunk, ModelRequest } from '../model.js'

/**
 * An adapter that plays raw chunk lists, one per request (then answers "done" and stops), and
 * keeps a copy of every request it was sent.
 */
export function chunkAdapter(...scripts: ModelChunk[][]): ModelAdapter & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    name: 'chunks',
    requests,
    stream(request) {
      const script = scripts[requests.length] ?? [{ type: 'text-delta', text: 'done' }, { type: 'finish', reason: 'stop' }]
      requests.push({ ...request, messages: request.messages.slice() })
      return (async function* () {
        for (const chunk of script) yield chunk
      })()
    },
  }
}
