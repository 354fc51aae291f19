import type { JsonValue } from '../json.js'
import type { ContentBlock, MessageInput } from '../session/messages.js'

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the turn is aborted; long-running tools should stop. */
  signal: AbortSignal
  /** The model's id for this call: stable across a crash, usable as an idempotency key. */
  callId: string
  turn: number
  step: number
}

/** The full form of a tool's return value. */
export interface ToolResultObject {
  content: string | ContentBlock[]
  isError?: boolean
  /** Inputs spliced into `next-step` after the results, seen by the model in the next step. */
  additionalContexts?: MessageInput[]
  /** This call asks to end the turn (when every call of the step does, and no input waits). */
  concludesTurn?: boolean
}

export type ToolReturn = string | ContentBlock[] | ToolResultObject

/**
 * A tool is a plain object.
 *
 * @example
 * const read: Tool<{ path: string }> = {
 *   name: 'read',
 *   description: 'Read a UTF-8 file',
 *   parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
 *   execute: async ({ path }, { signal }) => readFile(path, { encoding: 'utf8', signal }),
 * }
 */
export interface Tool<Args = any> {
  name: string
  description: string
  /** JSON Schema of the arguments object; arguments are validated with ajv before `execute`. */
  parameters: { [key: string]: JsonValue }
  execute(args: Args, context: ToolContext): ToolReturn | Promise<ToolReturn>
  /** May run alongside other calls of the same step. Default true. */
  parallel?: boolean
  /** A call of this tool ends the turn after the results (see {@link ToolResultObject}). */
  concludesTurn?: boolean
}

/** A tool result after execution, before it is committed; the `tool/result` hook rewrites it. */
export interface ToolResult {
  callId: string
  name: string
  content: ContentBlock[]
  isError: boolean
  additionalContexts: MessageInput[]
  concludesTurn: boolean
}
