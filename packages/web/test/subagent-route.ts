/** A scripted model for subagent tests: each conversation is scripted by its first user message (a child's is its task). */
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import type { ModelRequest } from '@bosun/core'

const firstUserText = (request: ModelRequest): string => {
  const first = request.messages.find((m) => m.role === 'user')
  return first && first.role === 'user' ? first.content.map((b) => ('text' in b ? b.text : '')).join('') : ''
}

/** The response for the request: the script of its first message, indexed by the assistant turns so far; `fallback` past its end. */
export function routeByFirstMessage(script: Record<string, ScriptedResponse[]>, fallback: ScriptedResponse): (request: ModelRequest) => ScriptedResponse {
  return (request) => script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? fallback
}
