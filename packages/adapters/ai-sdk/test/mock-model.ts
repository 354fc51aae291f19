// Hand-written AI SDK language models for tests: no network, no `ai` package. Each records the
// call options it received and streams scripted parts through a ReadableStream.
import type {
  LanguageModelV2, LanguageModelV2CallOptions, LanguageModelV2FinishReason, LanguageModelV2StreamPart, LanguageModelV3, LanguageModelV3CallOptions,
  LanguageModelV3StreamPart, LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart,
} from '@ai-sdk/provider'

/** One response: the parts to stream, or an error `doStream` throws, or a function of the call. */
export type MockResponse<Part> =
  | Part[]
  | { throws: unknown }
  | { parts: Part[]; /** Stream the parts, then hang until the call is aborted. */ hang: true }

interface MockOptions<Part> {
  provider?: string
  modelId?: string
  responses: MockResponse<Part>[]
}

interface Recorder<Options> {
  /** The options of every `doStream` call, in order. */
  readonly calls: Options[]
}

function streamOf<Part>(response: MockResponse<Part>, signal: AbortSignal | undefined): ReadableStream<Part> {
  const parts = Array.isArray(response) ? response : 'parts' in response ? response.parts : []
  const hang = !Array.isArray(response) && 'hang' in response
  return new ReadableStream<Part>({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      if (!hang) {
        controller.close()
        return
      }
      // Like a fetch body: the stream errors with an AbortError when the signal aborts.
      signal?.addEventListener('abort', () => controller.error(new DOMException('This operation was aborted', 'AbortError')), { once: true })
    },
  })
}

function mock<Options extends { abortSignal?: AbortSignal }, Part>(
  specificationVersion: 'v2' | 'v3' | 'v4',
  { provider = 'mock.chat', modelId = 'mock-1', responses }: MockOptions<Part>,
) {
  const calls: Options[] = []
  let n = 0
  return {
    specificationVersion,
    provider,
    modelId,
    supportedUrls: {},
    calls,
    doGenerate(): never {
      throw new Error('doGenerate is not used by the adapter')
    },
    async doStream(options: Options) {
      calls.push(options)
      const response = responses[n++]
      if (response === undefined) throw new Error(`mock model: no response left for call ${n}`)
      if (!Array.isArray(response) && 'throws' in response) throw response.throws
      return { stream: streamOf(response, options.abortSignal) }
    },
  }
}

export function mockV2(options: MockOptions<LanguageModelV2StreamPart>): LanguageModelV2 & Recorder<LanguageModelV2CallOptions> {
  return mock<LanguageModelV2CallOptions, LanguageModelV2StreamPart>('v2', options) as LanguageModelV2 & Recorder<LanguageModelV2CallOptions>
}

export function mockV3(options: MockOptions<LanguageModelV3StreamPart>): LanguageModelV3 & Recorder<LanguageModelV3CallOptions> {
  return mock<LanguageModelV3CallOptions, LanguageModelV3StreamPart>('v3', options) as LanguageModelV3 & Recorder<LanguageModelV3CallOptions>
}

export function mockV4(options: MockOptions<LanguageModelV4StreamPart>): LanguageModelV4 & Recorder<LanguageModelV4CallOptions> {
  return mock<LanguageModelV4CallOptions, LanguageModelV4StreamPart>('v4', options) as LanguageModelV4 & Recorder<LanguageModelV4CallOptions>
}

/** An APICallError look-alike (the real one lives in @ai-sdk/provider, which is types-only here). */
export function apiCallError(fields: {
  message: string
  statusCode?: number
  responseHeaders?: Record<string, string>
  responseBody?: string
  isRetryable?: boolean
}): Error {
  const error = new Error(fields.message)
  error.name = 'AI_APICallError'
  const status = fields.statusCode
  return Object.assign(error, {
    url: 'https://api.example.com/v1/chat',
    requestBodyValues: {},
    isRetryable: fields.isRetryable ?? (status === undefined || status === 408 || status === 409 || status === 429 || status >= 500),
    ...fields,
  })
}

/** V2 finish part. */
export const finishV2 = (
  finishReason: LanguageModelV2FinishReason,
  usage: Partial<{ inputTokens: number; outputTokens: number; reasoningTokens: number; cachedInputTokens: number }> = {},
): LanguageModelV2StreamPart => ({
  type: 'finish',
  finishReason,
  usage: { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined, ...usage },
})

type V3Reason = Extract<LanguageModelV3StreamPart, { type: 'finish' }>['finishReason']['unified']

/** V3 finish part (V4's has the same shape). */
export const finishV3 = (
  unified: V3Reason,
  usage: { input?: number; output?: number; reasoning?: number; cacheRead?: number } = {},
): Extract<LanguageModelV3StreamPart, { type: 'finish' }> => ({
  type: 'finish',
  finishReason: { unified, raw: unified === 'tool-calls' ? 'tool_use' : 'end_turn' },
  usage: {
    inputTokens: { total: usage.input, noCache: undefined, cacheRead: usage.cacheRead, cacheWrite: undefined },
    outputTokens: { total: usage.output, text: undefined, reasoning: usage.reasoning },
  },
})
