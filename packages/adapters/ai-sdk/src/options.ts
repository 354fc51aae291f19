import { DEFAULT_IDLE_TIMEOUT_MS, deadlineOptionsSchema } from '@bosun/core'
import type { JsonSchema, JsonValue } from '@bosun/core'

/** The specification versions this adapter speaks: `'v2'` (AI SDK 5), `'v3'` (AI SDK 6), `'v4'` (AI SDK 7). */
export type AiSdkSpecificationVersion = 'v2' | 'v3' | 'v4'

/**
 * A language model of the Vercel AI SDK, as any `@ai-sdk/*` provider package returns it
 * (`openai('gpt-4.1')`, `anthropic('claude-sonnet-4-5')`…): `LanguageModelV2`, `V3` or `V4`, told
 * apart at run time by its `specificationVersion`. Described by what the bridge uses of it, not
 * imported from `@ai-sdk/provider`: a provider built on any `@ai-sdk/provider` (3 for the providers
 * that run on Node 20, 4 for those that need Node 22) fits, and the bridge's types need no
 * `@ai-sdk` package installed — a peer range on one made npm refuse (`ERESOLVE`) an install beside
 * a provider built on another.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: AiSdkSpecificationVersion
  /** The provider id, e.g. `openai.chat`, `anthropic.messages`. */
  readonly provider: string
  readonly modelId: string
  /** Called with the call options of the model's own version; its result's `stream` is read. */
  doStream(options: never): PromiseLike<unknown>
}

export const specificationVersions: readonly AiSdkSpecificationVersion[] = ['v2', 'v3', 'v4']

/** Provider-specific options, keyed by provider (`{ anthropic: { thinking: {…} } }`). */
export type AiSdkProviderOptions = { [provider: string]: { [key: string]: JsonValue } }

/** Options of {@link aiSdk}. Only `model` is required. */
export interface AiSdkOptions {
  /** The AI SDK language model, e.g. `openai('gpt-4.1')` from `@ai-sdk/openai`. */
  model: AiSdkLanguageModel
  /** Upper bound of output tokens per response (`maxOutputTokens`), a safe integer ≥ 1. Default: the provider's. */
  maxTokens?: number
  /** Sampling temperature. Default: the provider's. */
  temperature?: number
  /** Passed to every call as `providerOptions`, e.g. `{ anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } }`. */
  providerOptions?: AiSdkProviderOptions
  /**
   * A call that brings no content for this long — no text, reasoning or tool-call progress, waiting
   * for the stream included; parts that map to nothing (metadata, raw, empty deltas) do not count —
   * fails with `TIMEOUT` and its request is aborted. Default 60000, as the other adapters.
   */
  idleTimeoutMs?: number
  /** A call that takes longer than this in all fails with `TIMEOUT` and its request is aborted. Default: no limit. */
  timeoutMs?: number
}

export { DEFAULT_IDLE_TIMEOUT_MS }

/**
 * JSON Schema of {@link AiSdkOptions}. `model` must be an object: a model can only be given from
 * code or a TypeScript config file (a JSON or YAML config cannot hold one).
 */
export const aiSdkOptionsSchema: JsonSchema = {
  type: 'object',
  description: 'Options of the ai-sdk adapter.',
  additionalProperties: false,
  required: ['model'],
  properties: {
    model: {
      type: 'object',
      description:
        "An AI SDK language model object, e.g. openai('gpt-4.1') from @ai-sdk/openai (only possible in a TypeScript config or in code).",
      'x-expected':
        "an AI SDK model object, e.g. openai('gpt-4.1') from @ai-sdk/openai, which only a TypeScript config (bosun.config.ts) or code can give: write this config in TypeScript",
    },
    // A safe integer: a larger one is no exact integer (1e21 and up reach the provider as "1e+21").
    maxTokens: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Upper bound of output tokens per response.' },
    temperature: { type: 'number', minimum: 0, description: 'Sampling temperature.' },
    providerOptions: {
      type: 'object',
      additionalProperties: { type: 'object' },
      description: 'Provider-specific options keyed by provider name, passed to every call as providerOptions.',
    },
    ...deadlineOptionsSchema,
  },
}
