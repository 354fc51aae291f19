import { assertOptions, ModelError, registerSecretsFromEnv, withContentDeadline } from '@bosun/core'
import type { Deadlines, JsonValue, ModelAdapter, ModelChunk, ModelRequest, OptionsProblem } from '@bosun/core'
import { abortedError, toModelError } from './errors.js'
import { aiSdkOptionsSchema, DEFAULT_IDLE_TIMEOUT_MS, specificationVersions } from './options.js'
import type { AiSdkLanguageModel, AiSdkOptions, AiSdkProviderOptions, AiSdkSpecificationVersion } from './options.js'
import { toPrompt, toTools } from './prompt.js'
import { StreamMapper } from './stream.js'
import { parallelToolCallsOption, toToolChoice } from './tool-choice.js'
import type { AiSdkStreamPart } from './stream.js'

/** A model adapter backed by an AI SDK language model. */
export interface AiSdkAdapter extends ModelAdapter {
  readonly name: 'ai-sdk'
  /** `<provider>:<modelId>`, e.g. `openai.responses:gpt-4.1`. */
  readonly model: string
  /** The wrapped AI SDK model. */
  readonly languageModel: AiSdkLanguageModel
}

/** What every version's `doStream` has in common; the options are built for the model's version. */
interface StreamingModel {
  doStream(options: unknown): PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>
}

/** Per-call settings: the adapter's options, overridden by `request.params`. */
interface CallSettings {
  maxOutputTokens?: number
  temperature?: number
  topP?: number
  topK?: number
  presencePenalty?: number
  frequencyPenalty?: number
  seed?: number
  stopSequences?: string[]
  providerOptions?: AiSdkProviderOptions
}

/**
 * Wraps a Vercel AI SDK language model (`LanguageModelV2`, `V3` or `V4`, as any `@ai-sdk/*`
 * provider returns it) as a Bosun model adapter. The model is called through `doStream` only,
 * when the returned stream is first iterated.
 *
 * @example
 * import { openai } from '@ai-sdk/openai'
 * const agent = await createAgent({ model: aiSdk({ model: openai('gpt-4.1'), maxTokens: 4096 }) })
 */
export function aiSdk(options: AiSdkOptions): AiSdkAdapter {
  // The schema a config file's options are checked with, then what it cannot say of the model object.
  assertOptions<AiSdkOptions>(aiSdkOptionsSchema, options, 'aiSdk()', { check: ({ model }) => modelProblems(model) })
  const model = options.model
  // The provider package reads its own key from the environment, under a name the bridge cannot
  // know: every variable whose name says it is a secret (`*_API_KEY`, `*_TOKEN`…) is masked by
  // value, so that a word-like key a 401 body quotes (no key's shape) is masked all the same.
  registerSecretsFromEnv()
  const spec = model.specificationVersion
  const deadlines: Deadlines = { idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, timeoutMs: options.timeoutMs }
  const defaults: CallSettings = {
    ...(options.maxTokens === undefined ? {} : { maxOutputTokens: options.maxTokens }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
  }
  return {
    name: 'ai-sdk',
    model: `${model.provider}:${model.modelId}`,
    languageModel: model,
    stream: (request, { signal }) => watchedResponse(model, spec, defaults, request, signal, deadlines),
  }
}

/**
 * The response under the content deadline (no text, reasoning or tool-call progress for
 * `idleTimeoutMs`, or longer than `timeoutMs`): the provider gets a signal of its own, aborted by
 * the turn's abort, by a timeout (providers have no watchdog: a stalled one would hang the turn)
 * and when the consumer stops early, so that its request is released in every case.
 */
async function* watchedResponse(
  model: AiSdkLanguageModel,
  spec: AiSdkSpecificationVersion,
  defaults: CallSettings,
  request: ModelRequest,
  signal: AbortSignal,
  deadlines: Deadlines,
): AsyncGenerator<ModelChunk> {
  const controller = new AbortController()
  const forward = () => controller.abort(signal.reason)
  if (signal.aborted) controller.abort(signal.reason)
  else signal.addEventListener('abort', forward, { once: true })
  try {
    yield* withContentDeadline(streamResponse(model, spec, defaults, request, controller.signal), deadlines, model.provider)
  } finally {
    signal.removeEventListener('abort', forward)
    controller.abort()
  }
}

/** An async generator: nothing runs (and `doStream` is not called) until the first `next()`. */
async function* streamResponse(
  model: AiSdkLanguageModel,
  spec: AiSdkSpecificationVersion,
  defaults: CallSettings,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelChunk> {
  if (signal.aborted) throw abortedError(signal.reason)
  const tools = toTools(request.tools)
  const toolChoice = toToolChoice(request)
  const callSettings = settings(defaults, request.params)
  const parallel = parallelToolCallsOption(request, model.provider)
  if (parallel !== undefined) callSettings.providerOptions = mergeProviderOptions(callSettings.providerOptions ?? {}, parallel)
  const callOptions = {
    prompt: toPrompt(request, spec, model.provider),
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { toolChoice } : {}),
    ...callSettings,
    abortSignal: signal,
  }
  let result: { stream: ReadableStream<AiSdkStreamPart> }
  try {
    result = await untilAborted((model as StreamingModel).doStream(callOptions), signal)
  } catch (error) {
    throw toModelError(error, signal, model.provider, model.modelId, callSettings.maxOutputTokens)
  }
  const reader = result.stream.getReader()
  // A provider that ignores the signal still stops here: cancelling ends the pending read.
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {})
  signal.addEventListener('abort', onAbort, { once: true })
  const mapper = new StreamMapper(model.provider, callSettings.maxOutputTokens)
  let ended = false
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>
      try {
        next = await reader.read()
      } catch (error) {
        throw toModelError(error, signal, model.provider, model.modelId, callSettings.maxOutputTokens)
      }
      if (signal.aborted) throw abortedError(signal.reason)
      if (next.done) break
      // A part that maps to no chunk (stream-start, metadata, raw, an empty delta) is no progress.
      for (const chunk of mapper.push(next.value)) yield chunk
    }
    ended = true
    if (!mapper.finished) {
      throw new ModelError('TRANSPORT', `${model.provider} ended the stream without a finish part: the response may be incomplete.`)
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    // Stopped early (a consumer's break, an error part): release the connection.
    if (!ended) void reader.cancel().catch(() => {})
    try {
      reader.releaseLock()
    } catch {
      // already released
    }
  }
}

/** Resolves with `promise`, or rejects with ABORTED as soon as `signal` aborts (cancelling a late stream). */
function untilAborted<T extends { stream: ReadableStream<unknown> }>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        if (signal.aborted) void value?.stream?.cancel?.().catch(() => {})
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * The call settings: the adapter's options, overridden by what a `prepareCall` hook put in
 * `request.params` (`maxTokens` or `maxOutputTokens`, `temperature`, `topP`, `topK`,
 * `presencePenalty`, `frequencyPenalty`, `seed`, `stopSequences`; `providerOptions` merged per
 * provider). `toolChoice` and `parallelToolCalls` are mapped apart (tool-choice.ts). Other params
 * are ignored.
 */
function settings(defaults: CallSettings, params: { [key: string]: JsonValue }): CallSettings {
  const result: CallSettings = { ...defaults }
  const maxTokens = params.maxOutputTokens ?? params.maxTokens
  if (typeof maxTokens === 'number') result.maxOutputTokens = maxTokens
  for (const key of ['temperature', 'topP', 'topK', 'presencePenalty', 'frequencyPenalty', 'seed'] as const) {
    const value = params[key]
    if (typeof value === 'number') result[key] = value
  }
  const stop = params.stopSequences
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) result.stopSequences = stop as string[]
  const extra = params.providerOptions
  if (isRecord(extra)) result.providerOptions = mergeProviderOptions(defaults.providerOptions ?? {}, extra)
  return result
}

/** `extra` over `base`, per provider. */
function mergeProviderOptions(base: AiSdkProviderOptions, extra: Record<string, unknown>): AiSdkProviderOptions {
  const merged: AiSdkProviderOptions = { ...base }
  for (const [provider, value] of Object.entries(extra)) {
    if (isRecord(value)) merged[provider] = { ...merged[provider], ...(value as { [key: string]: JsonValue }) }
  }
  return merged
}

/** What the schema cannot say of `model` (an object it has passed): that it is a language model this adapter speaks to. */
function modelProblems(model: unknown): OptionsProblem[] {
  const record = model as Record<string, unknown>
  const problem = (message: string): OptionsProblem[] => [{ keys: ['model'], message }]
  if (typeof record.doStream !== 'function') return problem("must be an AI SDK language model (with doStream), e.g. openai('gpt-4.1') from @ai-sdk/openai")
  const version = record.specificationVersion
  if (!specificationVersions.includes(version as AiSdkSpecificationVersion)) {
    return problem(`implements AI SDK specification ${JSON.stringify(version)}; supported are ${specificationVersions.join(', ')} (AI SDK 5, 6 and 7 providers)`)
  }
  if (typeof record.provider !== 'string' || typeof record.modelId !== 'string') return problem('has no "provider" and "modelId" strings')
  return []
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
