import type { LanguageModelV2StreamPart, LanguageModelV3StreamPart, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { ModelError } from '@bosun/core'
import type { ModelChunk, ModelFinishReason, ModelUsage } from '@bosun/core'
import { streamError } from './errors.js'
import { providerFamily, providerKeys } from './prompt.js'

/** A part of the stream of a V2, V3 or V4 model. */
export type AiSdkStreamPart = LanguageModelV2StreamPart | LanguageModelV3StreamPart | LanguageModelV4StreamPart

interface StreamedCall {
  index: number
  /** The arguments streamed so far. */
  arguments: string
}

/**
 * Turns the parts of one AI SDK stream into Bosun chunks. Stateful (tool calls are numbered in
 * order of appearance), so one mapper serves one response.
 *
 * - `text-delta` → `text-delta`; `reasoning-delta` → `reasoning-delta` with `provider` (the
 *   provider family, e.g. `anthropic`). A reasoning signature found in a part's
 *   `providerMetadata` (`{ anthropic: { signature } }`) is sent once per reasoning block, as a
 *   `reasoning-delta` with empty text, `signature`, and `provider` the metadata's key.
 * - `tool-input-start` → `tool-call-delta { index, id, name }`, `tool-input-delta` →
 *   `{ index, argumentsDelta }`; a `tool-call` part that was not streamed → one delta with id,
 *   name and the whole input. Calls the provider executes itself are left out.
 * - `finish` → `usage` (when the provider reported any) and `finish`; an `error` part, a finish
 *   reason `error`, or one that says the stream ended before a finish reason (see
 *   {@link finishReason}), is thrown as a {@link ModelError}.
 * - The rest (`stream-start`, `response-metadata`, `text-start`/`-end`, sources, files, raw) is ignored.
 */
export class StreamMapper {
  readonly #provider: string
  readonly #family: string
  readonly #keys: string[]
  readonly #calls = new Map<string, StreamedCall>()
  /** Ids of calls the provider runs itself (web search…): not Bosun's to run. */
  readonly #providerExecuted = new Set<string>()
  /** Reasoning blocks whose signature was sent. */
  readonly #signed = new Set<string>()
  #nextIndex = 0
  #finished = false
  /** The provider reported, as an error part, that its stream ended without a finish reason. */
  #noFinishReason = false

  /** The call's `maxOutputTokens`, which a `request_too_large` error part is typed by. */
  readonly #maxTokens: number | undefined

  constructor(provider: string, maxTokens?: number) {
    this.#provider = provider
    this.#maxTokens = maxTokens
    this.#family = providerFamily(provider)
    this.#keys = providerKeys(provider)
  }

  /** Whether the `finish` part was seen. */
  get finished(): boolean {
    return this.#finished
  }

  push(part: AiSdkStreamPart): ModelChunk[] {
    switch (part.type) {
      case 'text-delta':
        return part.delta === '' ? [] : [{ type: 'text-delta', text: part.delta }]
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-end': {
        const text = part.type === 'reasoning-delta' ? part.delta : ''
        const signed = this.#signature(part.id, part.providerMetadata)
        if (signed) return [{ type: 'reasoning-delta', text, signature: signed.signature, provider: signed.provider }]
        return text === '' ? [] : [{ type: 'reasoning-delta', text, provider: this.#family }]
      }
      case 'tool-input-start': {
        if (part.providerExecuted === true) {
          this.#providerExecuted.add(part.id)
          return []
        }
        return [{ type: 'tool-call-delta', index: this.#call(part.id).index, id: part.id, name: part.toolName }]
      }
      case 'tool-input-delta': {
        if (this.#providerExecuted.has(part.id) || part.delta === '') return []
        const known = this.#calls.has(part.id)
        const call = this.#call(part.id)
        call.arguments += part.delta
        return [{ type: 'tool-call-delta', index: call.index, ...(known ? {} : { id: part.id }), argumentsDelta: part.delta }]
      }
      case 'tool-call': {
        if (part.providerExecuted === true || this.#providerExecuted.has(part.toolCallId)) return []
        const streamed = this.#calls.get(part.toolCallId)
        if (streamed) {
          // Streamed already; a provider that streamed no arguments may still give them here.
          if (streamed.arguments !== '' || part.input === '') return []
          streamed.arguments = part.input
          return [{ type: 'tool-call-delta', index: streamed.index, argumentsDelta: part.input }]
        }
        const call = this.#call(part.toolCallId)
        call.arguments = part.input
        return [{
          type: 'tool-call-delta', index: call.index, id: part.toolCallId, name: part.toolName,
          ...(part.input === '' ? {} : { argumentsDelta: part.input }),
        }]
      }
      case 'finish': {
        this.#finished = true
        const usage = toUsage(part.usage)
        // `@ai-sdk/openai-compatible` says "no finish reason" with an error part, then finish `error`:
        // the same news as `@ai-sdk/openai`'s `other` without a reason, decided the same way.
        const given = this.#noFinishReason ? { unified: 'other' as const, raw: undefined } : part.finishReason
        const reason = finishReason(given, this.#provider, usage !== undefined)
        return usage ? [{ type: 'usage', usage }, { type: 'finish', reason }] : [{ type: 'finish', reason }]
      }
      case 'error':
        if (endedWithoutFinishReason(part.error)) {
          this.#noFinishReason = true
          return []
        }
        throw streamError(part.error, this.#provider, this.#maxTokens)
      default:
        return []
    }
  }

  #call(id: string): StreamedCall {
    let call = this.#calls.get(id)
    if (!call) {
      call = { index: this.#nextIndex++, arguments: '' }
      this.#calls.set(id, call)
    }
    return call
  }

  /** The reasoning signature in `metadata`, the first time one is seen for reasoning block `id`. */
  #signature(id: string, metadata: unknown): { signature: string; provider: string } | undefined {
    if (this.#signed.has(id) || typeof metadata !== 'object' || metadata === null) return undefined
    const entries = Object.entries(metadata as Record<string, unknown>)
    // The model's own key first (`anthropic` for `anthropic.messages`), then any other.
    entries.sort(([a], [b]) => Number(this.#keys.includes(b)) - Number(this.#keys.includes(a)))
    for (const [key, value] of entries) {
      const signature = (value as { signature?: unknown } | null)?.signature
      if (typeof signature === 'string' && signature !== '') {
        this.#signed.add(id)
        return { signature, provider: key }
      }
    }
    return undefined
  }
}

type FinishPart = Extract<AiSdkStreamPart, { type: 'finish' }>

/**
 * `@ai-sdk/openai-compatible`'s error part for a Chat Completions stream whose body ended without a
 * `finish_reason` (an `InvalidResponseDataError`; its `finish` part follows, reason `error`).
 */
function endedWithoutFinishReason(error: unknown): boolean {
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; message?: unknown }
  return name === 'AI_InvalidResponseDataError' && typeof message === 'string' && /ended without a finish reason/i.test(message)
}

/**
 * V2 gives the finish reason as a string, V3 and V4 as `{ unified, raw }`. `length` is
 * `max-tokens`; `error` is thrown as `SERVER`. A stream that ended before the provider said why it
 * stopped is thrown as `TRANSPORT` (retryable), as the native adapters treat a stream that ends
 * before its finish reason: V4's `interrupted`, V3/V4 `other` with no `raw` reason (what
 * `@ai-sdk/openai` and `@ai-sdk/anthropic` report when the stream ended before a finish reason
 * arrived), and V2's `unknown` (the same, in AI SDK 5 providers). `other` with a reason the
 * provider gave (`raw`, or V2's `other`) is a response that ended: `stop`, as the native adapters
 * count a finish reason they do not know.
 *
 * `other` without a reason and `unknown` are `stop` too when the stream reported its usage
 * (`reportedUsage`): `@ai-sdk/openai` says the same for a complete stream that never gave a
 * `finish_reason` (some OpenAI-compatible servers), which the `openai` adapter accepts at `[DONE]`.
 * The provider does not pass `[DONE]` on, but the usage chunk is the last a server sends, after the
 * answer; a stream cut short has none, and stays `TRANSPORT`.
 */
export function finishReason(reason: FinishPart['finishReason'], provider: string, reportedUsage = false): ModelFinishReason {
  const unified = typeof reason === 'string' ? reason : reason?.unified
  const given = typeof reason === 'object' && reason !== null && typeof reason.raw === 'string' && reason.raw !== '' ? reason.raw : undefined
  const raw = given === undefined ? '' : ` (${given})`
  switch (unified) {
    case 'stop':
    case 'tool-calls':
    case 'content-filter':
      return unified
    case 'length':
      return 'max-tokens'
    case 'error':
      throw new ModelError('SERVER', `${provider} stopped the response because of an error${raw}.`)
    case 'other':
      if (typeof reason === 'string' || given !== undefined || reportedUsage) return 'stop'
      throw cut(provider, `finish reason "other" with no reason from the provider, nor any usage`)
    case 'interrupted':
      throw cut(provider, `finish reason "interrupted"${raw}`)
    case 'unknown':
      if (reportedUsage) return 'stop'
      throw cut(provider, `finish reason "unknown" and no usage`)
    default:
      throw cut(provider, `finish reason ${JSON.stringify(unified ?? null)}`)
  }
}

/**
 * A stream that ended before the provider gave its finish reason: the answer may be cut short, so
 * it must not look complete. Retryable, as a connection dropped mid-stream is.
 */
function cut(provider: string, what: string): ModelError {
  return new ModelError('TRANSPORT', `${provider} ended the stream before the response was complete (${what}): the response may be incomplete.`)
}

/** V2 usage is flat; V3 and V4 nest it (`inputTokens.total`, `outputTokens.reasoning`…). Only known counts are kept. */
export function toUsage(usage: FinishPart['usage'] | undefined): ModelUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined
  const result: ModelUsage = {}
  const set = (key: keyof ModelUsage, value: unknown) => {
    if (typeof value === 'number' && Number.isFinite(value)) result[key] = value
  }
  const input = usage.inputTokens as unknown
  const output = usage.outputTokens as unknown
  if (typeof input === 'object' && input !== null) {
    set('inputTokens', (input as { total?: unknown }).total)
    set('cachedInputTokens', (input as { cacheRead?: unknown }).cacheRead)
  } else {
    set('inputTokens', input)
    set('cachedInputTokens', (usage as { cachedInputTokens?: unknown }).cachedInputTokens)
  }
  if (typeof output === 'object' && output !== null) {
    set('outputTokens', (output as { total?: unknown }).total)
    set('reasoningTokens', (output as { reasoning?: unknown }).reasoning)
  } else {
    set('outputTokens', output)
    set('reasoningTokens', (usage as { reasoningTokens?: unknown }).reasoningTokens)
  }
  return Object.keys(result).length > 0 ? result : undefined
}
