import type { ModelRequest, ToolSpec } from '../model.js'
import type { BosunEventMap } from '../session/events.js'
import type { Session } from '../session/session.js'
import type { AgentRuntime } from './runtime.js'

/** The system prompt and tool set last logged as `request/context` in a session. */
export interface LoggedRequestContext {
  system: string
  /** The tools array last compared: the same array again is the same tool set, without a look. */
  tools: readonly ToolSpec[]
  /** The logged tool set as JSON, made only when a request brings a different tools array. */
  toolsJson: string | undefined
}

/**
 * Appends `request/context {system, tools}` before a request whose system prompt or tool set
 * differs from the last one logged in the session (the first request, and after any change), so
 * the log shows everything the model saw. The common step costs two identity checks: the same
 * system string and the same (frozen) tools array as last time.
 */
export function logRequestContext(rt: AgentRuntime, request: ModelRequest): void {
  let last = rt.requestContext
  if (last === undefined) last = rt.requestContext = lastLoggedContext(rt.session) ?? null
  if (last !== null && last.system === request.system) {
    if (last.tools === request.tools) return
    const json = JSON.stringify(toolSet(request.tools))
    last.toolsJson ??= JSON.stringify(toolSet(last.tools))
    if (json === last.toolsJson) {
      last.tools = request.tools
      return
    }
  }
  const tools = toolSet(request.tools)
  rt.session.append('request/context', { system: request.system, tools })
  rt.requestContext = { system: request.system, tools: request.tools, toolsJson: undefined }
}

/** What a tool spec says to the model, in a fixed key order (so that equal sets compare equal as JSON). */
function toolSet(tools: readonly ToolSpec[]): BosunEventMap['request/context']['tools'] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }))
}

/**
 * The last `request/context` of a resumed session: one backwards scan, once per agent (at its
 * first request, when the surface's first build has just read the log: a sealed log's pages are
 * then in the decode cache). By seq, not through `session.events`' view.
 */
function lastLoggedContext(session: Session): LoggedRequestContext | undefined {
  for (let i = session.length - 1; i >= 0; i--) {
    const event = session.eventAt(i)!
    if (event.type !== 'request/context') continue
    const data = event.data as BosunEventMap['request/context']
    return { system: data.system, tools: data.tools, toolsJson: undefined }
  }
  return undefined
}
