import {
  adapterOptionProblems, apiKeyEnvOptionSchema, assertOptions, baseURLOptionSchema, DEFAULT_IDLE_TIMEOUT_MS, deadlineOptionsSchema,
  headersOptionSchema,
} from '@bosun/core'
import type { JsonSchema } from '@bosun/core'

/** How much the model may think before it answers; see {@link thinkingBudgets}. */
export type ReasoningEffort = 'low' | 'medium' | 'high'

/** Options of the Anthropic adapter; the same object in code and in a config file. */
export interface AnthropicOptions {
  /** The model, e.g. `claude-sonnet-4-5`. `request.model` (from `prepareCall`) overrides it per request. */
  model: string
  /** The API root, without `/v1`. Default `https://api.anthropic.com`. */
  baseURL?: string
  /**
   * The environment variable that holds the API key. Default `ANTHROPIC_API_KEY`, for
   * api.anthropic.com only: another `baseURL` (a proxy, a compatible API) gets no key unless it is named.
   */
  apiKeyEnv?: string
  /** `max_tokens` of each request (Anthropic requires it). Default 4096; `params.maxTokens` overrides it. */
  maxTokens?: number
  /** Sampling temperature, 0–1. Default: the provider's. `params.temperature` overrides it. */
  temperature?: number
  /** Enables extended thinking with a token budget: low 1024, medium 4096, high 16384. Default: off. */
  reasoningEffort?: ReasoningEffort
  /** Extra HTTP headers (e.g. `anthropic-beta`). They cannot replace `x-api-key`, `content-type` or `accept`. */
  headers?: Record<string, string>
  /**
   * Fail with `TIMEOUT` when no content (text, thinking or tool-call progress) arrives for this
   * long, in ms, waiting for the answer included; `ping` events do not count. Default 60000.
   */
  idleTimeoutMs?: number
  /** Fail with `TIMEOUT` when one request (headers, stream and all) takes longer than this, in ms. Default: no limit. */
  timeoutMs?: number
}

/** The options with every default filled in. */
export interface ResolvedOptions {
  model: string
  baseURL: string
  apiKeyEnv: string
  maxTokens: number
  temperature: number | undefined
  reasoningEffort: ReasoningEffort | undefined
  headers: Record<string, string>
  idleTimeoutMs: number
  timeoutMs: number | undefined
}

/** `budget_tokens` of `thinking: { type: 'enabled' }` for each reasoning effort. */
export const thinkingBudgets: Readonly<Record<ReasoningEffort, number>> = { low: 1024, medium: 4096, high: 16384 }

export const DEFAULT_BASE_URL = 'https://api.anthropic.com'
export const DEFAULT_API_KEY_ENV = 'ANTHROPIC_API_KEY'
export const DEFAULT_MAX_TOKENS = 4096
export { DEFAULT_IDLE_TIMEOUT_MS }

const EXAMPLE_URL = 'https://api.anthropic.com'

/** JSON Schema of {@link AnthropicOptions}, checked with ajv before a config file's adapter is created. */
export const anthropicOptionsSchema: JsonSchema = {
  type: 'object',
  description: 'Options of the Anthropic Messages adapter.',
  additionalProperties: false,
  required: ['model'],
  properties: {
    model: { type: 'string', minLength: 1, description: 'The model, e.g. claude-sonnet-4-5.' },
    baseURL: baseURLOptionSchema(EXAMPLE_URL, 'The API root, without /v1. Default https://api.anthropic.com.'),
    apiKeyEnv: apiKeyEnvOptionSchema('ANTHROPIC_API_KEY', 'The environment variable that holds the API key. Default ANTHROPIC_API_KEY, for api.anthropic.com only: another baseURL gets no key unless it is named.'),
    maxTokens: { type: 'integer', minimum: 1, description: 'max_tokens of each request. Default 4096.' },
    temperature: { type: 'number', minimum: 0, maximum: 1, description: 'Sampling temperature, 0–1.' },
    reasoningEffort: {
      enum: Object.keys(thinkingBudgets),
      description: 'Extended thinking budget: low 1024, medium 4096, high 16384 tokens. Default: off.',
    },
    headers: headersOptionSchema('Extra HTTP headers, e.g. anthropic-beta. They cannot replace x-api-key.'),
    ...deadlineOptionsSchema,
  },
}

/**
 * Checks options given in code against {@link anthropicOptionsSchema} — the schema a config file's
 * options are checked against, so a mistake reads the same from code and from a config — then
 * what the schema cannot say (the base URL parses, the headers are ones fetch can send), and fills
 * in the defaults. Throws `INVALID_ARGUMENT` listing every problem:
 * `Invalid options for anthropic():\n  - $.temperature: must be a number from 0 to 1 (found 3)`.
 */
export function resolveOptions(options: AnthropicOptions): ResolvedOptions {
  assertOptions<AnthropicOptions>(anthropicOptionsSchema, options, 'anthropic()', { check: (checked) => adapterOptionProblems(checked, EXAMPLE_URL) })
  const { model, baseURL = DEFAULT_BASE_URL, apiKeyEnv = DEFAULT_API_KEY_ENV, maxTokens = DEFAULT_MAX_TOKENS } = options
  const { temperature, reasoningEffort, headers = {}, idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS, timeoutMs } = options
  return { model, baseURL, apiKeyEnv, maxTokens, temperature, reasoningEffort, headers: { ...headers }, idleTimeoutMs, timeoutMs }
}
