import type { SerializedError } from '../errors.js'
import type { JsonValue } from '../json.js'
import type { AssistantMessage, ContentBlock, UserMessage } from './messages.js'
import type { ModelChunk, ModelUsage, StepFinish } from '../model.js'
import type { InboxSplice } from '../inbox/types.js'

/** Why a turn ended. Exactly one `turn/end` per `turn/start`. */
export type TurnEndReason =
  | { kind: 'completed' }
  | { kind: 'blocked'; by: string; metadata: JsonValue }
  | { kind: 'aborted'; reason?: string }
  /**
   * `model: true`: the model call failed (the adapter, or an `llm/stream` wrapper such as a retry
   * plugin, gave up) and the agent goes on with its queue. Absent: a hook, the system prompt or the
   * store threw — the agent stopped, and queued input waits for a wake (seed 003 §8). Recovery
   * reads it (`agent.recovery.waiting`); logs written before it existed lack it on both.
   */
  | { kind: 'error'; error: SerializedError; model?: true }
  | { kind: 'max-tokens' }
  /** Written only by crash recovery for a turn that a crash left open. */
  | { kind: 'interrupted' }

/**
 * The data of every event type the core writes. Plugins add their own namespaced types by
 * declaration merging:
 *
 * @example
 * declare module '@bosun/core' {
 *   interface BosunEventMap { 'rate-limit/hit': { key: string; retryAfterMs: number } }
 * }
 */
export interface BosunEventMap {
  'turn/start': { turn: number }
  'turn/end': { turn: number; reason: TurnEndReason }
  'step/start': { turn: number; step: number }
  'step/end': { turn: number; step: number; finish: StepFinish }
  'user/message': UserMessage
  'assistant/chunk': { turn: number; step: number; chunk: ModelChunk }
  'assistant/message': {
    turn: number
    step: number
    message: AssistantMessage
    usage?: ModelUsage
    interrupted?: boolean
  }
  'tool/call': { turn: number; step: number; callId: string; name: string; arguments: string }
  'tool/result': { turn: number; step: number; callId: string; name: string; content: ContentBlock[]; isError?: boolean }
  'agent/inbox/spliced': InboxSplice
  'agent/pre-step/rejected': { turn: number; by: string; metadata: JsonValue }
  /**
   * What the model is told besides the history: the system prompt and the tools (name,
   * description, parameters), as sent. Appended before a request only when it differs from the
   * last one logged in the session (the first request, and after any change).
   */
  'request/context': RequestContext
  'request/header': RequestHeader
  'llm/retry': { turn: number; step: number; attempt: number; delayMs: number; error: SerializedError }
  /** A compaction began (`reason`: e.g. `threshold`, `context-window`, `manual`). */
  'compaction/start': { reason: string; [key: string]: JsonValue }
  /**
   * The surface replaces every message that came from an event with `seq < firstKeptSeq` by one
   * user message holding `summary` (source `compaction`). The log keeps everything.
   */
  'compaction/summary': { summary: string; firstKeptSeq: number; [key: string]: JsonValue }
  'compaction/end': { [key: string]: JsonValue }
  'session/end-seed': Record<string, never>
}

/** The data of `request/context`. */
export interface RequestContext {
  system: string
  tools: { name: string; description: string; parameters: { [key: string]: JsonValue } }[]
}

/** What was sent to the model, minus the history itself and minus any secret. */
export interface RequestHeader {
  turn: number
  step: number
  adapter: string
  model?: string
  messageCount: number
  tools: string[]
  params?: { [key: string]: JsonValue }
}

export type EventType = keyof BosunEventMap

/** The envelope of every logged event. `seq` is contiguous from 0; `time` is epoch ms. */
export interface SessionEvent<T extends string = string> {
  readonly seq: number
  readonly time: number
  readonly type: T
  readonly data: T extends EventType ? Readonly<BosunEventMap[T]> : unknown
  /**
   * Set on events of a plugin type declared `ignorable`: a reader that does not know the type
   * may skip it. Any other unknown type makes a session refuse to open (see `checkEventTypes`).
   */
  readonly ignorable?: true
}

/** The event types of the core map: always known to every reader. */
export const CORE_EVENT_TYPES: ReadonlySet<string> = new Set<EventType>([
  'turn/start', 'turn/end', 'step/start', 'step/end', 'user/message', 'assistant/chunk', 'assistant/message',
  'tool/call', 'tool/result', 'agent/inbox/spliced', 'agent/pre-step/rejected', 'request/context', 'request/header', 'llm/retry',
  'compaction/start', 'compaction/summary', 'compaction/end', 'session/end-seed',
])

/** Any event of the core map, discriminated by `type`. */
export type KnownEvent = { [T in EventType]: SessionEvent<T> }[EventType]

/** The first record of a stored session. */
export interface SessionHeader {
  readonly id: string
  /** The log format version; a store refuses a log written by a newer version. */
  readonly version: number
  readonly createdAt: number
  /** The session this one was forked from. */
  readonly parent?: string
  /** Number of leading events copied from the parent; the child's own history starts here. */
  readonly seedLength?: number
  /** Set on a session another agent delegated work to (a subagent): who spawned it, and how. */
  readonly delegation?: Delegation
}

/** {@link SessionHeader.delegation}: the parent session, the tool call that spawned the child, its depth and mode. */
export interface Delegation {
  readonly parentSessionId: string
  readonly callId: string
  /** The parent's depth + 1 (a top-level session has depth 0). */
  readonly depth: number
  /** `one-shot`: closed after its first answer; `continuable`: settles again after each follow-up. */
  readonly mode: 'one-shot' | 'continuable'
}

/** The event-log format version this build writes. */
export const LOG_FORMAT_VERSION = 1

/** Narrows an event to a type of the core map. */
export function isEvent<T extends EventType>(event: SessionEvent, type: T): event is SessionEvent<T> {
  return event.type === type
}
