import { ModelErrorCodes } from '@bosun/core'
import type { JsonSchema, JsonValue, ModelErrorCode, ModelFinishReason, ModelRequest, ModelUsage } from '@bosun/core'

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** The tool's name. */
  name: string
  /** The arguments object; streamed as its JSON text. Defaults to `{}`. */
  args?: { [key: string]: JsonValue }
  /** The call id. Defaults to `call_<request>_<index>` (request counted from 1, index from 0). */
  id?: string
}

/** A failure the scripted model reports, thrown as a `ModelError`. */
export interface ScriptedError {
  /** HTTP status (100–599). Gives the code when `code` is absent. */
  status?: number
  /** Error code; defaults to `ModelError.codeForStatus(status, message)`, or `SERVER` without a status. */
  code?: ModelErrorCode
  /** Error message; defaults to one naming the code and status. */
  message?: string
  /** How long the provider asked to wait before retrying. */
  retryAfterMs?: number
  /** Overrides whether a retry may help; defaults to what the code implies. */
  retryable?: boolean
}

/** One scripted model response, consumed by one model request. */
export interface ScriptedResponse {
  /** Answer text, streamed as `text-delta` chunks. */
  text?: string
  /** Reasoning, streamed as `reasoning-delta` chunks before the text. */
  reasoning?: string
  /** Tool calls, streamed as `tool-call-delta` chunks after the text. */
  toolCalls?: ScriptedToolCall[]
  /** The finish reason. Defaults to `tool-calls` when `toolCalls` are given, else `stop`. */
  finish?: ModelFinishReason
  /** Token usage, sent as a `usage` chunk before the finish (only when given). */
  usage?: ModelUsage
  /** Characters per chunk of text, reasoning and tool-call arguments. Defaults to the whole string. */
  chunkSize?: number
  /** Milliseconds to wait before each chunk (and before a scripted error). Abort-aware. Default 0. */
  delayMs?: number
  /** Fail the request: whatever else is given is streamed first, then a `ModelError` is thrown. */
  error?: ScriptedError
}

/**
 * A response computed from the request when it is consumed (code only, not config files).
 * The returned response is validated like any other.
 */
export type ScriptedResponseFunction = (request: ModelRequest) => ScriptedResponse

/** An entry of `responses`: a response, or a function of the request returning one. */
export type ScriptedEntry = ScriptedResponse | ScriptedResponseFunction

/** Options of the scripted adapter; the JSON part is the same in a config file. */
export interface ScriptedOptions {
  /** Responses in order, one per model request. When none are left, the adapter echoes. */
  responses?: readonly ScriptedEntry[]
  /** Keep a copy of each request's shape in `adapter.recorded` (costs O(history) per request). */
  record?: boolean
}

/** The finish reasons a response may script. */
export const finishReasons: readonly ModelFinishReason[] = ['stop', 'tool-calls', 'max-tokens', 'content-filter']

const tokenCount = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, description })

const usageSchema: JsonSchema = {
  type: 'object',
  description: 'Token usage, sent as a `usage` chunk before the finish (only when given).',
  additionalProperties: false,
  properties: {
    inputTokens: tokenCount('Prompt tokens.'),
    outputTokens: tokenCount('Completion tokens.'),
    reasoningTokens: tokenCount('Reasoning tokens (part of the output).'),
    cachedInputTokens: tokenCount('Prompt tokens served from a cache.'),
  },
}

const errorSchema: JsonSchema = {
  type: 'object',
  description:
    'Fail the request: text, reasoning, tool calls and usage given alongside are streamed first, then a ModelError is thrown. Cannot be combined with `finish`.',
  additionalProperties: false,
  properties: {
    status: { type: 'integer', minimum: 100, maximum: 599, description: 'HTTP status; gives the code when `code` is absent.' },
    code: {
      enum: [...ModelErrorCodes],
      description: 'Error code; defaults to the code for `status`, or SERVER without a status.',
    },
    message: { type: 'string', description: 'Error message; defaults to one naming the code and status.' },
    retryAfterMs: { type: 'number', minimum: 0, description: 'How long the provider asked to wait before retrying.' },
    retryable: { type: 'boolean', description: 'Overrides whether a retry may help; defaults to what the code implies.' },
  },
}

const toolCallSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, description: "The tool's name." },
    // The tool's arguments are the user's data: a key like `targetEnv` is not an option naming a variable.
    args: { type: 'object', 'x-bosun-data': true, description: 'The arguments object, streamed as its JSON text. Defaults to {}.' },
    id: { type: 'string', minLength: 1, description: 'The call id. Defaults to call_<request>_<index>.' },
  },
}

/** One scripted response. */
export const scriptedResponseSchema: JsonSchema = {
  type: 'object',
  description: 'One model response, consumed by one model request.',
  additionalProperties: false,
  properties: {
    text: { type: 'string', description: 'Answer text, streamed as text-delta chunks.' },
    reasoning: { type: 'string', description: 'Reasoning, streamed as reasoning-delta chunks before the text.' },
    toolCalls: {
      type: 'array',
      items: toolCallSchema,
      description: 'Tool calls, streamed as tool-call-delta chunks after the text.',
    },
    finish: {
      enum: [...finishReasons],
      description: 'The finish reason. Defaults to tool-calls when toolCalls are given, else stop.',
    },
    usage: usageSchema,
    chunkSize: {
      type: 'integer',
      minimum: 1,
      description: 'Characters per chunk of text, reasoning and tool-call arguments. Defaults to the whole string.',
    },
    delayMs: {
      type: 'number',
      minimum: 0,
      // A Node timer fires at once for a longer wait.
      maximum: 2_147_483_647,
      description: 'Milliseconds to wait before each chunk (and before a scripted error), at most 2147483647. Abort-aware. Default 0.',
    },
    error: errorSchema,
  },
  // A failing response has no finish: `finish` must be left out when `error` is given.
  dependencies: {
    error: {
      properties: {
        finish: { not: {}, 'x-expected': 'left out when "error" is given: a failing response has no finish' },
      },
    },
  },
}

/** JSON Schema of {@link ScriptedOptions} as a config file gives them (responses are objects). */
export const scriptedOptionsSchema: JsonSchema = {
  type: 'object',
  description: 'Options of the scripted adapter.',
  additionalProperties: false,
  properties: {
    responses: {
      type: 'array',
      items: scriptedResponseSchema,
      description: 'Responses in order, one per model request. When none are left, the adapter echoes the last user message.',
    },
    record: {
      type: 'boolean',
      description: 'Keep a copy of each request in adapter.recorded (for tests). Default false.',
    },
  },
}
