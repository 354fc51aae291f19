import { maskSecretValues } from './config/secret-values.js'

/**
 * Every error Bosun throws on a public path is a {@link BosunError} with a stable `code`.
 * Codes are listed once, here, so that docs and callers can rely on them.
 */
export const ErrorCodes = {
  /** An argument of a public function has the wrong type or is out of range. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** An event's `data` (or a message) is not plain JSON. */
  NOT_JSON: 'NOT_JSON',
  /** An event type is not a `noun/phase` name. */
  INVALID_EVENT_TYPE: 'INVALID_EVENT_TYPE',
  /** A UserMessage or content block does not have the documented shape. */
  INVALID_MESSAGE: 'INVALID_MESSAGE',
  /** A splice's coordinates are out of bounds (only reachable through replay or bad input). */
  INVALID_SPLICE: 'INVALID_SPLICE',
  /**
   * A new message reuses an id this session has already seen (pending, claimed, delivered or
   * canceled): an id is a receipt, unique for the life of the session. Also a requeue of a message
   * that was never claimed, or already reached a step.
   */
  DUPLICATE_MESSAGE_ID: 'DUPLICATE_MESSAGE_ID',
  /**
   * `agent.followup()`, `steer()` or `inject()` of a message whose `source.delivery` names another
   * way of sending it (crash recovery reads that field to decide who is owed a wake). Send it with
   * the method it names, or leave `source.delivery` unset. `details`: `{ id, delivery, expected }`.
   * Also a send of a message that already carries `source.afterAbort` (the agent's alone): leave it
   * unset. `details`: `{ id, afterAbort }`. A message whose id the session has used is
   * DUPLICATE_MESSAGE_ID instead, whatever its source says.
   */
  DELIVERY_MISMATCH: 'DELIVERY_MISMATCH',
  /** A write to a read-only view: the model request, or the surface's messages (return a new request instead). */
  READ_ONLY: 'READ_ONLY',
  /** Edit or removal by id of a message that is no longer pending (a claim won the race). */
  MESSAGE_NOT_PENDING: 'MESSAGE_NOT_PENDING',
  /** `agent.compact()` was called but no plugin taps the `agent/compact` hook. */
  NO_COMPACTION: 'NO_COMPACTION',
  /** `claim` was called from a session observer while a splice was being logged. */
  INBOX_REENTRANT: 'INBOX_REENTRANT',
  /** A persisted `agent/inbox/spliced` event cannot be replayed. */
  INVALID_PERSISTED_SPLICE: 'INVALID_PERSISTED_SPLICE',
  /** A plugin definition is malformed. */
  INVALID_PLUGIN: 'INVALID_PLUGIN',
  /** A plugin's options do not match its JSON Schema. */
  PLUGIN_OPTIONS_INVALID: 'PLUGIN_OPTIONS_INVALID',
  /** A plugin's `setup` threw. */
  PLUGIN_SETUP_FAILED: 'PLUGIN_SETUP_FAILED',
  /** A hook tap threw; the error names the plugin (tap) and the hook, and keeps the cause. */
  PLUGIN_HOOK_FAILED: 'PLUGIN_HOOK_FAILED',
  /** A hook returned a value of the wrong shape. */
  INVALID_HOOK_RESULT: 'INVALID_HOOK_RESULT',
  /** A tool definition is malformed (name, parameters schema, execute). */
  INVALID_TOOL: 'INVALID_TOOL',
  /** The agent was closed; it accepts no more input. */
  AGENT_CLOSED: 'AGENT_CLOSED',
  /** A store operation failed (I/O, unknown session, version). */
  STORE: 'STORE',
  /** A session id is not acceptable (empty, separators, traversal, too long). */
  INVALID_SESSION_ID: 'INVALID_SESSION_ID',
  /** A stored log is damaged (not just a torn tail); the message names the file and the position (line or seq). */
  CORRUPT_LOG: 'CORRUPT_LOG',
  /** A stored log was written by a newer format version than this build reads. */
  UNSUPPORTED_LOG_VERSION: 'UNSUPPORTED_LOG_VERSION',
  /** A stored log holds an event type no core module or plugin of this agent declares, and it is not marked ignorable. */
  UNKNOWN_EVENT_TYPE: 'UNKNOWN_EVENT_TYPE',
  /** A second writer appended to the same session: this writer's view is stale. */
  STALE_WRITER: 'STALE_WRITER',
  /**
   * `createAgent({ signal })` was aborted while the agent was being built (a plugin's setup that
   * does not settle, a store that does not answer): it rejected at once, the setups that had
   * finished were torn down and the session was released (its lock or lease), without waiting for
   * the work still running. `details`: `{ sessionId, during, plugin? }` — what the build was doing,
   * and whose setup ran then.
   */
  OPEN_ABORTED: 'OPEN_ABORTED',
  /** The session already exists where a new one was requested. */
  SESSION_EXISTS: 'SESSION_EXISTS',
  /** The session is open for writing elsewhere (another process, or another agent or store of this one). */
  SESSION_LOCKED: 'SESSION_LOCKED',
  /**
   * `removeSession` was asked to remove a subagent's child whose parent session is still stored:
   * the parent's recovery would make the child again, believing a crash left it unmade. Remove the
   * parent, which removes its children with it. `details`: `{ sessionId, parentSessionId }`.
   */
  CHILD_SESSION: 'CHILD_SESSION',
  /**
   * A store refused a file it would have had to open: a symbolic link where the store does not
   * follow links (a JSONL session or lock file), a special file (FIFO, device, socket, directory)
   * where a regular file belongs, or a session file with more than one name (hard links). The
   * message names the file and what to do; `details.file` and `details.kind` say which and why.
   */
  UNSAFE_STORE_FILE: 'UNSAFE_STORE_FILE',
  /** A model adapter emitted a chunk of an unknown shape. */
  MALFORMED_CHUNK: 'MALFORMED_CHUNK',
  /**
   * A model provider answered a request with a redirect (HTTP 3xx with a `Location`). Adapters do
   * not follow it: the API key and custom headers go to the configured origin only. Thrown as a
   * `ModelError` (not retryable) whose message names the target's origin, never its full URL.
   */
  PROVIDER_REDIRECT: 'PROVIDER_REDIRECT',
  /**
   * A model provider's non-streamed body (an error body, a JSON answer) is larger than the
   * adapter reads (1 MiB for an error body): reading stopped at the cap and the connection was
   * closed. Thrown as a `ModelError` that is not retryable.
   */
  RESPONSE_TOO_LARGE: 'RESPONSE_TOO_LARGE',
  /**
   * A config file (or a config given in code) cannot be used: it does not parse, breaks the schema,
   * names a plugin, adapter, store or tool that cannot be found or loaded, gives options its
   * schema refuses, holds a literal secret or names an unset environment variable. The message
   * lists every problem with its JSON path; `details.problems` holds them as `{ path, plugin?, message }`.
   */
  CONFIG_INVALID: 'CONFIG_INVALID',
} as const

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes]

export interface BosunErrorOptions {
  cause?: unknown
  /** Structured context (plugin, hook, path, seq…) shown by tools and kept on the error. */
  details?: Record<string, unknown>
}

const BRAND = Symbol.for('bosun.error')

/**
 * The base class of every Bosun error. `code` is stable across versions; `message` says what
 * to do. Use {@link BosunError.is} instead of `instanceof` so that errors from a duplicate
 * install of `@bosun/core` are still recognised.
 */
export class BosunError extends Error {
  readonly code: string
  readonly details: Record<string, unknown>

  constructor(code: string, message: string, options: BosunErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'BosunError'
    this.code = code
    this.details = options.details ?? {}
    Object.defineProperty(this, BRAND, { value: true })
  }

  /** True for any Bosun error (optionally with the given code), across duplicate installs. */
  static is(value: unknown, code?: string): value is BosunError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[BRAND] === true &&
      (code === undefined || (value as BosunError).code === code)
    )
  }
}

/** Shorthand for an {@link ErrorCodes.INVALID_ARGUMENT} error. */
export function invalidArgument(message: string, details?: Record<string, unknown>): BosunError {
  return new BosunError(ErrorCodes.INVALID_ARGUMENT, message, details ? { details } : {})
}

/** A JSON-safe description of any thrown value, for `turn/end {kind: 'error'}` and tool results. */
export interface SerializedError {
  code: string
  message: string
  status?: number
  retryable?: boolean
  retryAfterMs?: number
  details?: Record<string, unknown>
}

/**
 * `error` described for an event or a tool result. Every secret this process registered
 * (`registerSecret`: the `…Env` variables' values, the adapters' keys) is masked as `[redacted]` in
 * the message and the string details: a provider's 401 body often quotes the key, and this text
 * goes into `turn/end`, the session file and the terminal.
 */
export function serializeError(error: unknown): SerializedError {
  if (BosunError.is(error)) {
    const out: SerializedError = { code: error.code, message: maskSecretValues(error.message) }
    const e = error as BosunError & { status?: number; retryable?: boolean; retryAfterMs?: number }
    if (typeof e.status === 'number') out.status = e.status
    if (typeof e.retryable === 'boolean') out.retryable = e.retryable
    if (typeof e.retryAfterMs === 'number') out.retryAfterMs = e.retryAfterMs
    const details = jsonSafeDetails(error.details)
    if (details) out.details = details
    return out
  }
  if (error instanceof Error) return { code: 'UNEXPECTED', message: maskSecretValues(error.message) }
  return { code: 'UNEXPECTED', message: maskSecretValues(String(error)) }
}

function jsonSafeDetails(details: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  let any = false
  for (const [key, value] of Object.entries(details)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      if (typeof value === 'number' && !Number.isFinite(value)) continue
      out[key] = typeof value === 'string' ? maskSecretValues(value) : value
      any = true
    }
  }
  return any ? out : undefined
}
