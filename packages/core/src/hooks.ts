import { AsyncSeriesBailHook, AsyncSeriesWaterfallHook, SyncHook } from 'tapable'
import { BosunError, ErrorCodes } from './errors.js'
import { logThrown } from './log-thrown.js'
import type { JsonValue } from './json.js'
import type { ModelAdapter, ModelChunk, ModelRequest } from './model.js'
import type { Inbox } from './inbox/inbox.js'
import type { InboxTarget } from './inbox/types.js'
import type { SessionEvent } from './session/events.js'
import type { UserMessage } from './session/messages.js'
import type { Session } from './session/session.js'
import type { Surface } from './session/surface.js'
import type { ToolResult } from './tools/types.js'

/** The value of the `agent/pre-step` waterfall: admit (possibly rewritten) messages, or reject the step. */
export type PreStepDecision =
  | { kind: 'enter'; messages: readonly UserMessage[] }
  /** `by` defaults to the name of the tap that returned the reject. */
  | { kind: 'reject'; metadata?: JsonValue; by?: string }

/** Shared by every hook context: where we are and how to stop. */
export interface TurnContext {
  turn: number
  step: number
  /** Aborted when the turn is aborted. */
  signal: AbortSignal
  session: Session
  inbox: Inbox
  /** The model-visible history (read it; change it only through events such as `compaction/summary`). */
  surface: Surface
}

export interface PreStepContext extends TurnContext {
  /** What the step claimed from the inbox (next-step messages first, then the next-turn head). */
  claimed: readonly UserMessage[]
  /** The assembled system prompt of this step. */
  system: string
}

export interface PrepareCallContext extends TurnContext {
  /** The adapter that will be called; a tap may replace it (e.g. route to a cheaper model). Locked after the waterfall. */
  adapter: ModelAdapter
}

export interface StreamContext extends TurnContext {
  request: ModelRequest
  adapter: ModelAdapter
  /**
   * Sends the request again — the same one, or `request` (e.g. rebuilt from a compacted
   * history) — and returns a fresh stream, for retry and recovery wrappers.
   */
  open(request?: ModelRequest): AsyncIterable<ModelChunk>
}

export interface ToolResultContext extends TurnContext {
  call: { callId: string; name: string; arguments: string }
}

/** What `agent.compact()` hands the `agent/compact` hook: a maintenance context. */
export interface CompactContext {
  signal: AbortSignal
  session: Session
  inbox: Inbox
  surface: Surface
  /** The agent's model adapter (a summary request goes through it). */
  adapter: ModelAdapter
  /** Why: `manual` for `agent.compact()`, or what the caller passed. */
  reason: string
}

export type AgentStatus = 'idle' | 'running'

/**
 * Tap stages. Taps run in ascending stage; equal stages run in registration (config) order.
 *
 * @example
 * hooks.preStep.tapPromise({ name: 'auth', stage: Stage.early }, async (decision) => decision)
 */
export const Stage = { first: -1000, early: -100, normal: 0, late: 100, last: 1000 } as const

/**
 * Every hook of the runtime, declared once. Waterfalls (`AsyncSeriesWaterfallHook`) transform a
 * value through the taps in order; observers (`SyncHook`) are notifications that must not throw.
 */
export interface AgentHooks {
  /** `agent/pre-step`: admit, rewrite or reject a step. The first reject ends the chain. */
  preStep: AsyncSeriesWaterfallHook<[PreStepDecision, PreStepContext]>
  /** `prepareCall`: fix the request (model, params, messages) before the adapter is locked. */
  prepareCall: AsyncSeriesWaterfallHook<[ModelRequest, PrepareCallContext]>
  /** `llm/stream`: wrap or transform the adapter's chunk stream (retry, output filtering). */
  llmStream: AsyncSeriesWaterfallHook<[AsyncIterable<ModelChunk>, StreamContext]>
  /** `tool/result`: redact or enrich a tool result, add contexts, before it is committed. */
  toolResult: AsyncSeriesWaterfallHook<[ToolResult, ToolResultContext]>
  /** `session/event`: every appended event (before projections apply it). */
  event: SyncHook<[SessionEvent]>
  /** `agent/status`: the public status changed. */
  status: SyncHook<[AgentStatus]>
  /** `agent/inbox/inserted`, `…/discarded`, `…/claimed`: live inbox notifications (never on replay). */
  inboxInserted: SyncHook<[UserMessage, InboxTarget]>
  inboxDiscarded: SyncHook<[UserMessage, InboxTarget]>
  inboxClaimed: SyncHook<[UserMessage, number]>
  /**
   * `agent/canceled`: `agent.cancel()` dropped the pending input (not with `keepInbox`). A plugin
   * that holds input outside the inbox (a requeue waiting for its time) drops it too.
   */
  canceled: SyncHook<[]>
  /**
   * `agent/compact`: compact the history now (`agent.compact()`, run as maintenance between
   * turns). A compaction plugin taps it and returns true when it compacted; the first answer wins.
   */
  compact: AsyncSeriesBailHook<[CompactContext], boolean | undefined>
  /** `agent/error`: an error that was contained (a throwing observer, a failed flush in a finally). */
  error: SyncHook<[unknown, string]>
}

/** The observer hooks (`SyncHook`s): a throwing tap is reported and the next tap still runs. */
const OBSERVERS = new Set(['session/event', 'agent/status', 'agent/inbox/inserted', 'agent/inbox/discarded', 'agent/inbox/claimed', 'agent/canceled', 'agent/error'])

/**
 * Creates the hook registry of one agent. A tap on an observer hook that throws is contained:
 * `report(error, context)` gets it (by default `agent/error`'s taps, else `console.error`; a
 * throwing `agent/error` tap goes to `console.error`), and the taps after it still run — one
 * plugin's broken observer must not blind another's (rate-limit counts from `session/event`).
 */
export function createHooks(report?: (error: unknown, context: string) => void): AgentHooks {
  const hooks: AgentHooks = {
    preStep: new AsyncSeriesWaterfallHook(ARGS.decisionContext, 'agent/pre-step'),
    prepareCall: new AsyncSeriesWaterfallHook(ARGS.requestContext, 'prepareCall'),
    llmStream: new AsyncSeriesWaterfallHook(ARGS.streamContext, 'llm/stream'),
    toolResult: new AsyncSeriesWaterfallHook(ARGS.resultContext, 'tool/result'),
    event: new SyncHook(ARGS.event, 'session/event'),
    status: new SyncHook(ARGS.status, 'agent/status'),
    inboxInserted: new SyncHook(ARGS.messageTarget, 'agent/inbox/inserted'),
    inboxDiscarded: new SyncHook(ARGS.messageTarget, 'agent/inbox/discarded'),
    inboxClaimed: new SyncHook(ARGS.messageTurn, 'agent/inbox/claimed'),
    canceled: new SyncHook(ARGS.none, 'agent/canceled'),
    compact: new AsyncSeriesBailHook(ARGS.context, 'agent/compact'),
    error: new SyncHook(ARGS.errorContext, 'agent/error'),
  }
  const reportError = report ?? ((error: unknown, context: string) => {
    if (hooks.error.taps.length > 0) hooks.error.call(error, context)
    else logThrown(context, error)
  })
  for (const hook of Object.values(hooks) as { name?: string; interceptors: object[]; intercept: (interceptor: TapWrapper) => void }[]) {
    const interceptor: TapWrapper = { register: wrapRegisteredTap, bosunHook: hook.name ?? 'unknown', bosunReport: reportError }
    hook.intercept(interceptor)
    // `intercept` pushes onto an empty array, which V8 grows to 17 slots (152 bytes) per hook —
    // 12 hooks an agent, kept by every idle session; a one-slot copy holds the same interceptor.
    hook.interceptors = hook.interceptors.slice()
  }
  return hooks
}

/**
 * The hooks' argument names, shared by every agent's hooks (tapable only reads them): an array per
 * hook per agent was ~64 bytes kept by every idle session.
 */
const ARGS = {
  decisionContext: ['decision', 'context'],
  requestContext: ['request', 'context'],
  streamContext: ['stream', 'context'],
  resultContext: ['result', 'context'],
  event: ['event'],
  status: ['status'],
  messageTarget: ['message', 'target'],
  messageTurn: ['message', 'turn'],
  none: [] as void[],
  context: ['context'],
  errorContext: ['error', 'context'],
} as const

/**
 * A hook's register interceptor. tapable copies it (`Object.assign`) and calls `register` as its
 * method, so one shared function reads the hook's name and reporter from `this`: a closure and
 * its context per hook per agent (~100 bytes each, 12 hooks) were kept by every idle session.
 */
interface TapWrapper {
  register(this: TapWrapper, tap: { name: string; type: string; fn: Function }): { name: string; type: string; fn: Function }
  bosunHook: string
  bosunReport: (error: unknown, context: string) => void
}

function wrapRegisteredTap(this: TapWrapper, tap: { name: string; type: string; fn: Function }): { name: string; type: string; fn: Function } {
  const hookName = this.bosunHook
  return {
    ...tap,
    fn: OBSERVERS.has(hookName) ? containTap(hookName, tap.name, tap.fn, this.bosunReport) : wrapTap(hookName, tap.name, tap.type, tap.fn),
  }
}

/** An observer tap that reports its throw instead of stopping the taps after it. */
function containTap(hook: string, plugin: string, fn: Function, report: (error: unknown, context: string) => void): Function {
  const context = `"${plugin}" observing ${hook}`
  return (...args: unknown[]) => {
    try {
      fn(...args)
    } catch (error) {
      if (hook === 'agent/error') logThrown(context, error)
      else {
        try {
          report(error, context)
        } catch (reportError) {
          logThrown(context, error, reportError)
        }
      }
    }
  }
}

/**
 * Wraps a tap so that its failure names the plugin (tap) and the hook and keeps the cause, and —
 * for `agent/pre-step` — so that a reject passes through the remaining taps untouched and is
 * attributed to the tap that made it.
 */
function wrapTap(hook: string, plugin: string, type: string, fn: Function): Function {
  const isPreStep = hook === 'agent/pre-step'
  const wrapError = (error: unknown) =>
    BosunError.is(error, ErrorCodes.PLUGIN_HOOK_FAILED)
      ? error
      : new BosunError(
          ErrorCodes.PLUGIN_HOOK_FAILED,
          `Plugin "${plugin}" failed in hook "${hook}": ${error instanceof Error ? error.message : String(error)}`,
          { cause: error, details: { plugin, hook } },
        )
  const attribute = (result: unknown) => {
    if (!isPreStep) return result
    const decision = result as PreStepDecision | undefined
    if (decision?.kind === 'reject' && decision.by === undefined) return { ...decision, by: plugin }
    return result
  }
  if (type === 'async') {
    return (...args: unknown[]) => {
      const callback = args.pop() as (error: unknown, result?: unknown) => void
      if (isPreStep && (args[0] as PreStepDecision).kind === 'reject') return callback(null, args[0])
      try {
        fn(...args, (error: unknown, result?: unknown) => (error ? callback(wrapError(error)) : callback(null, attribute(result))))
      } catch (error) {
        callback(wrapError(error))
      }
    }
  }
  if (type === 'promise') {
    return (...args: unknown[]) => {
      if (isPreStep && (args[0] as PreStepDecision).kind === 'reject') return Promise.resolve(args[0])
      try {
        return Promise.resolve(fn(...args)).then(attribute, (error: unknown) => {
          throw wrapError(error)
        })
      } catch (error) {
        return Promise.reject(wrapError(error))
      }
    }
  }
  return (...args: unknown[]) => {
    if (isPreStep && (args[0] as PreStepDecision).kind === 'reject') return args[0]
    try {
      return attribute(fn(...args))
    } catch (error) {
      throw wrapError(error)
    }
  }
}
