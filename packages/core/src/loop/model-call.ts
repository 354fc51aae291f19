import { BosunError, ErrorCodes, serializeError, type SerializedError } from '../errors.js'
import { ModelError, type ModelAdapter, type ModelChunk, type ModelRequest, type StepFinish, type ToolSpec } from '../model.js'
import type { BosunEventMap } from '../session/events.js'
import type { AssistantMessage, ToolCallBlock } from '../session/messages.js'
import { appendOwnedData } from '../session/session.js'
import { logRequestContext } from './request-context.js'
import { forEachUntilAborted } from './abortable.js'
import { BlockAssembler } from './assembler.js'
import { copyChunk } from './chunk-copy.js'
import type { AgentRuntime, StepScope } from './runtime.js'
import { wrapStream } from './stream-taps.js'
import { ABORTED, unlessAborted } from '../when-aborted.js'

export interface ModelCallOutcome {
  finish: StepFinish
  message?: AssistantMessage
  toolCalls: ToolCallBlock[]
  error?: SerializedError
}

/**
 * One model request of a step: `prepareCall` fixes the request and the adapter, `request/header`
 * is logged and the log flushed (the durable point before anything leaves the process), the
 * `llm/stream` waterfall wraps the adapter's stream, and every chunk is logged as
 * `assistant/chunk` and assembled into one `assistant/message`.
 *
 * Model failures are outcomes (`finish: 'error'`), not exceptions; a hook that throws is.
 */
export async function callModel(rt: AgentRuntime, scope: StepScope, system: string): Promise<ModelCallOutcome> {
  const { turn, step, abort } = scope
  const signal = abort.signal
  // Frozen, with a read-only view of the history: a tap changes the request by returning a new one
  // (a waterfall), and nothing a tap or the adapter does can change the history behind the log.
  const initial: ModelRequest = Object.freeze({ system, messages: rt.surface.messages, tools: rt.tools.specs, params: NO_PARAMS })
  let request = initial
  let adapter = rt.adapter
  // A hook without taps is skipped (no context object, no promise): the common case costs nothing.
  if (rt.hooks.prepareCall.taps.length > 0) {
    const callContext = hookContext(rt, scope, rt.adapter)
    const prepared = await unlessAborted(rt.hooks.prepareCall.promise(initial, callContext), abort)
    if (prepared === ABORTED) return { finish: 'aborted', toolCalls: [] }
    checkRequest(prepared)
    request = freezeRequest(prepared)
    adapter = callContext.adapter
  }
  logRequestContext(rt, request)
  logRequestHeader(rt, scope, request, adapter)
  await rt.session.flush()
  if (abort.aborted) return { finish: 'aborted', toolCalls: [] }

  // With `llm/stream` taps, the stream they wrap; without, the adapter is called below, inside the
  // try, so that a throw from it is the call's failure either way.
  let wrapped: AsyncIterable<ModelChunk> | undefined
  if (rt.hooks.llmStream.taps.length > 0) {
    // Lazy: the adapter is called when the wrapped stream is first iterated.
    const send = (next: ModelRequest): AsyncIterable<ModelChunk> => {
      checkRequest(next)
      const frozen = freezeRequest(next)
      return {
        [Symbol.asyncIterator]: () => {
          // A stream tap that re-sends with another system prompt or tool set: the log says so first.
          logRequestContext(rt, frozen)
          return adapter.stream(frozen, { signal })[Symbol.asyncIterator]()
        },
      }
    }
    const stream = await unlessAborted(wrapStream(rt.hooks.llmStream, send, hookContext(rt, scope, adapter), request), abort)
    if (stream === ABORTED) return { finish: 'aborted', toolCalls: [] }
    wrapped = stream
  }

  let assembler = new BlockAssembler(`call_${turn}_${step}`)
  // A retry plugin logs `llm/retry` before it sends the request again: what the failed attempt
  // streamed stays in the log as chunks but never reaches the assembled message. Only an
  // `llm/stream` wrapper can send again, so without one nothing is watched.
  const stopWatchingRetries = rt.hooks.llmStream.taps.length === 0 ? undefined : rt.session.subscribe((event) => {
    if (event.type !== 'llm/retry') return
    const retry = event.data as { turn: number; step: number }
    if (retry.turn === turn && retry.step === step) assembler = new BlockAssembler(`call_${turn}_${step}`)
  })
  let failure: unknown
  try {
    await forEachUntilAborted(wrapped ?? adapter.stream(request, { signal }), abort, (chunk) => {
      // Copied first (a chunk that is not JSON fails here, naming its path), then checked and
      // folded in, then logged: the assembled message never holds what the log refused.
      const copied = copyChunk(chunk)
      assembler.push(copied)
      appendOwnedData(rt.session, 'assistant/chunk', { turn, step, chunk: copied })
    })
  } catch (error) {
    failure = error
  } finally {
    stopWatchingRetries?.()
  }

  if (abort.aborted) return finalise(rt, scope, assembler, 'aborted')
  if (failure === undefined && !assembler.hasContent && assembler.finish === undefined) {
    failure = new ModelError('EMPTY_RESPONSE', `The model (${adapter.name}) ended the stream without any content or finish reason.`)
  }
  if (failure !== undefined) return { ...finalise(rt, scope, assembler, 'error'), error: serializeError(failure) }
  // A call cut off at the output limit may have truncated arguments: it never runs (seed 000).
  if (assembler.finish === 'max-tokens') return finalise(rt, scope, assembler, 'max-tokens')
  // A response the provider's safety system stopped is not acted on: a tool call it carried never
  // runs (the model answered something the provider refused to finish).
  if (assembler.finish === 'content-filter') return finalise(rt, scope, assembler, 'content-filter')
  const calls = assembler.toolCalls
  const finish = calls.length > 0 ? 'tool-calls' : assembler.finish === 'tool-calls' ? 'stop' : assembler.finish ?? 'stop'
  return finalise(rt, scope, assembler, finish)
}

/** What the `prepareCall` and `llm/stream` taps receive besides the request. */
function hookContext(rt: AgentRuntime, scope: StepScope, adapter: ModelAdapter) {
  return { turn: scope.turn, step: scope.step, signal: scope.abort.signal, session: rt.session, inbox: rt.inbox, surface: rt.surface, adapter }
}

/**
 * Logs the assistant message: the delivered prefix, marked interrupted, when the call did not
 * finish. A message of an aborted, failed, truncated (`max-tokens`) or filtered (`content-filter`)
 * call keeps no tool calls, and
 * one left with no content is not written at all (its chunks stay in the log).
 */
function finalise(rt: AgentRuntime, scope: StepScope, assembler: BlockAssembler, finish: StepFinish): ModelCallOutcome {
  const interrupted = finish === 'aborted' || finish === 'error'
  const withoutCalls = interrupted || finish === 'max-tokens' || finish === 'content-filter'
  if (withoutCalls && !assembler.hasContent) return { finish, toolCalls: [] }
  const message = assembler.message(withoutCalls)
  if (withoutCalls && message.content.length === 0) return { finish, toolCalls: [] }
  const usage = assembler.usage
  // Owned data: the message and usage are deep-frozen copies of what the (copied, checked) chunks
  // carried, so the append need not copy them again.
  const data: BosunEventMap['assistant/message'] = { turn: scope.turn, step: scope.step, message }
  if (usage) data.usage = usage
  if (interrupted) data.interrupted = true
  appendOwnedData(rt.session, 'assistant/message', data)
  return { finish, message, toolCalls: withoutCalls ? [] : assembler.toolCalls }
}

/** The names of each tool set, made once per (frozen) tools array: the same array comes every step. */
const toolNames = new WeakMap<readonly ToolSpec[], readonly string[] | null>()

/** The frozen names of `tools`, or null if a name is not a string (a prepareCall tap's doing). */
function namesOf(tools: readonly ToolSpec[]): readonly string[] | null {
  let names = toolNames.get(tools)
  if (names === undefined) {
    const list = tools.map((tool) => tool?.name)
    names = list.every((name) => typeof name === 'string') ? Object.freeze(list) : null
    toolNames.set(tools, names)
  }
  return names
}

/**
 * `request/header`: what is sent, minus the history. Appended as owned data (no copy) when every
 * value is known JSON — strings, numbers, a frozen names array — which is every request that no
 * `prepareCall` tap gave params or odd values; otherwise copied and checked like any event.
 */
function logRequestHeader(rt: AgentRuntime, scope: StepScope, request: ModelRequest, adapter: ModelAdapter): void {
  const { turn, step } = scope
  const model = request.model ?? adapter.model
  const names = namesOf(request.tools)
  const tools = (names ?? request.tools.map((tool) => tool?.name)) as string[]
  const messageCount = request.messages.length
  const header: BosunEventMap['request/header'] = model
    ? { turn, step, adapter: adapter.name, model, messageCount, tools }
    : { turn, step, adapter: adapter.name, messageCount, tools }
  const params = request.params === NO_PARAMS || Object.keys(request.params).length === 0 ? undefined : request.params
  if (params === undefined && names !== null && typeof adapter.name === 'string' && (!model || typeof model === 'string')) {
    appendOwnedData(rt.session, 'request/header', header)
  } else {
    rt.session.append('request/header', params === undefined ? header : { ...header, params })
  }
}

const NO_PARAMS: ModelRequest['params'] = Object.freeze({})

/** A request as taps and the adapter receive it: frozen (its history is a read-only view already). */
function freezeRequest(request: ModelRequest): ModelRequest {
  if (Object.isFrozen(request)) return request
  Object.freeze(request.params)
  return Object.freeze(request)
}

function checkRequest(request: ModelRequest): void {
  if (
    typeof request !== 'object' || request === null || typeof request.system !== 'string' ||
    !Array.isArray(request.messages) || !Array.isArray(request.tools) ||
    typeof request.params !== 'object' || request.params === null
  ) {
    throw new BosunError(
      ErrorCodes.INVALID_HOOK_RESULT,
      'The "prepareCall" hook must return a request { system: string, messages: [], tools: [], params: {} }.',
    )
  }
}
