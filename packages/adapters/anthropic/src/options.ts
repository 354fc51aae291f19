import { DEFAULT_IDLE_TIMEOUT_MS, deadlineOptionsSchema, invalidArgument } from '@bosun/core'
import type { JsonSchema } from '@bosun/core'

/** How much the model may think before it answers; see {@link thinkingBudgets}. */
export type ReasoningEffort = 'low' | 'medium' | 'high'

/** Options of the Anthropic adapter; the same object in code and in a config file. */
export interface AnthropicOptions {
  /** The model, e.g. `claude-sonnet-4-5`. `request.model` (from `prepareCall`) overrides it per request. */
  model: string
  /** The API root, without `/v1`. Default `https://api.anthropic.com`. */
  baseURL?: string
  /** The environment variable that holds the API key. Default `ANTHROPIC_API_KEY`. */
  apiKeyEnv?: string
  /** `max_tokens` of each request (Anthropic requires it). Default 4096; `params.maxTokens` overrides it. */
  maxTokens?: number
  /** Sampling temperature, 0–1. Default: the provider's. `params.temperature` overrides it. */
  temperature?: number
  /** Enables extended thinking with a token budget: low 1024, medium 4096, high 16384. Default: off. */
  reasoningEffort?: ReasoningEffort
  /** Extra HTTP headers (e.g. `anthropic-beta`). They cannot replace `x-api-key`. */
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

const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$'

/** JSON Schema of {@link AnthropicOptions}, checked with ajv before a config file's adapter is created. */
export const anthropicOptionsSchema: JsonSchema = {
  type: 'object',
  description: 'Options of the Anthropic Messages adapter.',
  additionalProperties: false,
  required: ['model'],
  properties: {
    model: { type: 'string', minLength: 1, description: 'The model, e.g. claude-sonnet-4-5.' },
    baseURL: {
      // One branch, for the sentence: a failed anyOf is reported with `x-expected`, not with the regular expression.
      anyOf: [{ type: 'string', pattern: '^https?://' }],
      'x-expected': 'a URL that starts with http:// or https://, e.g. "https://api.anthropic.com"',
      description: 'The API root, without /v1. Default https://api.anthropic.com.',
    },
    apiKeyEnv: {
      type: 'string',
      pattern: ENV_NAME,
      description: 'The environment variable that holds the API key. Default ANTHROPIC_API_KEY.',
    },
    maxTokens: { type: 'integer', minimum: 1, description: 'max_tokens of each request. Default 4096.' },
    temperature: { type: 'number', minimum: 0, maximum: 1, description: 'Sampling temperature, 0–1.' },
    reasoningEffort: {
      enum: Object.keys(thinkingBudgets),
      description: 'Extended thinking budget: low 1024, medium 4096, high 16384 tokens. Default: off.',
    },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Extra HTTP headers, e.g. anthropic-beta. They cannot replace x-api-key.',
    },
    ...deadlineOptionsSchema,
  },
}

/**
 * Checks options given in code (a config file's are checked against the schema first) and fills
 * in the defaults. Throws `INVALID_ARGUMENT` naming the field.
 */
export function resolveOptions(options: AnthropicOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw invalidArgument('anthropic(options): options must be an object with a "model".')
  const { model, baseURL = DEFAULT_BASE_URL, apiKeyEnv = DEFAULT_API_KEY_ENV, maxTokens = DEFAULT_MAX_TOKENS } = options
  const { temperature, reasoningEffort, headers = {}, idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS, timeoutMs } = options
  const unknown = Object.keys(options).filter((key) => !(key in (anthropicOptionsSchema.properties as object)))
  if (unknown.length > 0) fail(unknown[0]!, 'is not an option (known: ' + Object.keys(anthropicOptionsSchema.properties as object).join(', ') + ')')
  if (typeof model !== 'string' || model === '') fail('model', 'must be a non-empty string, e.g. "claude-sonnet-4-5"', model)
  if (typeof baseURL !== 'string' || !/^https?:\/\//.test(baseURL)) refuseURL('must start with http:// or https://', baseURL)
  // Parsed now: the request URL is made from it, and URL's own error would quote it whole.
  if (!URL.canParse(baseURL)) refuseURL('must be a valid URL', baseURL)
  // fetch refuses a URL with user:password@ on every request, quoting it whole in a retryable
  // TRANSPORT error (message and cause) that the loop logs: refused here, and never quoted.
  if (hasUserinfo(baseURL)) {
    fail('baseURL', 'must not carry user:password@ (the value given is not shown): put the key in the environment variable that apiKeyEnv names')
  }
  // fetch never sends a fragment: one here does nothing but may hold a token (`#access_token=…`).
  if (baseURL.includes('#')) {
    fail('baseURL', 'must not have a #fragment (the value given is not shown): it is never sent to the server; put the key in the environment variable that apiKeyEnv names')
  }
  // A key pasted here instead of a variable's name must not be echoed.
  if (typeof apiKeyEnv !== 'string' || !new RegExp(ENV_NAME).test(apiKeyEnv)) {
    fail('apiKeyEnv', 'must name an environment variable (letters, digits and "_", like "ANTHROPIC_API_KEY"); the value given is not shown')
  }
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) fail('maxTokens', 'must be a positive integer', maxTokens)
  if (temperature !== undefined && !(typeof temperature === 'number' && temperature >= 0 && temperature <= 1)) {
    fail('temperature', 'must be a number from 0 to 1', temperature)
  }
  if (reasoningEffort !== undefined && !Object.hasOwn(thinkingBudgets, reasoningEffort)) {
    fail('reasoningEffort', 'must be "low", "medium" or "high"', reasoningEffort)
  }
  if (typeof headers !== 'object' || headers === null || Object.values(headers).some((value) => typeof value !== 'string')) {
    fail('headers', 'must be an object of string values')
  }
  // Headers' own message quotes the offending value, which may be a key with a stray line break.
  for (const [name, value] of Object.entries(headers)) {
    try {
      new Headers([[name, value]])
    } catch {
      fail('headers', `must hold valid HTTP header names and values: ${JSON.stringify(name)} is not a token, or its value has a line break (the value is not shown)`)
    }
  }
  if (!Number.isSafeInteger(idleTimeoutMs) || idleTimeoutMs < 1) fail('idleTimeoutMs', 'must be a positive integer (ms)', idleTimeoutMs)
  if (timeoutMs !== undefined && (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1)) fail('timeoutMs', 'must be a positive integer (ms)', timeoutMs)
  return { model, baseURL, apiKeyEnv, maxTokens, temperature, reasoningEffort, headers: { ...headers }, idleTimeoutMs, timeoutMs }
}

/** Whether a URL has a user or password before its host (`https://user:key@host`). */
function hasUserinfo(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.username !== '' || parsed.password !== ''
  } catch {
    return /^[^/?#]*\/\/[^/?#]*@/.test(url)
  }
}

/** A value that may carry a credential (userinfo, a query) and so is not quoted in an error. */
const mayHoldCredential = (value: string): boolean => /[@?#]/.test(value)

/** A refused baseURL: quoted unless it may hold a credential. */
function refuseURL(problem: string, baseURL: unknown): never {
  const expected = `${problem}, e.g. "https://api.anthropic.com" (without /v1)`
  if (typeof baseURL === 'string' && mayHoldCredential(baseURL)) fail('baseURL', `${expected}; the value given is not shown (it may hold a credential)`)
  fail('baseURL', expected, baseURL)
}

/** `found` is given as a rest parameter so that an `undefined` value is still shown. */
function fail(field: string, problem: string, ...found: unknown[]): never {
  const shown = found.length > 0 ? ` (found ${JSON.stringify(found[0]) ?? String(found[0])})` : ''
  throw invalidArgument(`anthropic(): "${field}" ${problem}${shown}.`, { field })
}
