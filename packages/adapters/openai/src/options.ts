import { apiKeyEnvOptionSchema, baseURLOptionSchema, DEFAULT_IDLE_TIMEOUT_MS, deadlineOptionsSchema, headersOptionSchema } from '@bosun/core'
import type { JsonSchema } from '@bosun/core'

/** Which request field carries the output-token limit. */
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens'

/**
 * Options of the OpenAI-compatible adapter; the same object is accepted from a config file
 * (`model: { adapter: 'openai', options }`). The API key is never an option: name the
 * environment variable that holds it (`apiKeyEnv`).
 */
export interface OpenAIOptions {
  /** The model, e.g. `gpt-4.1`, `deepseek-chat`, `llama3.2`. `request.model` overrides it per request. */
  model: string
  /** The API root, up to and without `/chat/completions`. Default `https://api.openai.com/v1`. */
  baseURL?: string
  /**
   * The environment variable holding the API key, read once when the adapter is created (an
   * unset or empty variable is an error then). Without it: `OPENAI_API_KEY` for
   * `api.openai.com`, and no key (no `Authorization` header) for any other server.
   */
  apiKeyEnv?: string
  /** Output-token limit (`max_tokens`, or the field `maxTokensField` names). */
  maxTokens?: number
  /** Sampling temperature, 0 to 2. */
  temperature?: number
  /** `reasoning_effort` for reasoning models (`low`, `medium`, `high`, …). */
  reasoningEffort?: string
  /** Extra HTTP headers (OpenRouter's `HTTP-Referer`, `X-Title`, a proxy's routing header…). Never a key. */
  headers?: Record<string, string>
  /**
   * A request that brings no content — no text, reasoning or tool-call progress, waiting for the
   * answer included — for this long fails with `TIMEOUT`; keep-alive comments and empty deltas do
   * not count. Default 60000.
   */
  idleTimeoutMs?: number
  /** A request (headers, stream and all) that takes longer than this fails with `TIMEOUT`. Default: no limit. */
  timeoutMs?: number
  /** Send the limit as `max_tokens` (default) or as `max_completion_tokens` (OpenAI o-series and GPT-5). */
  maxTokensField?: MaxTokensField
  /**
   * The name that tags this server's reasoning blocks (`reasoning-delta.provider`). Reasoning is
   * passed back only to the provider that produced it. Default: from `baseURL`: `deepseek`,
   * `openai`, `openrouter`, `xai`, else `openai-compatible:<host>`. Error messages name the server
   * by `baseURL` whatever this says: a gateway tagged `openai` is "The server at <host>".
   */
  provider?: string
  /**
   * Send this provider's own reasoning back as `reasoning_content` on assistant messages that
   * carry tool calls (DeepSeek requires it within a tool-call loop). Default true.
   */
  reasoningPassback?: boolean
  /**
   * Send `stream_options: { include_usage: true }`, which asks the server for the response's
   * token usage. Default true. `false` for an OpenAI-compatible server that refuses the field: the
   * request then has no `stream_options`, and usage is only what the server sends unasked — often
   * none, so no token counts in `assistant/message` (nor the CLI's, nor a plugin's that counts tokens).
   */
  streamOptions?: boolean
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1'
export { DEFAULT_IDLE_TIMEOUT_MS }

/** JSON Schema of {@link OpenAIOptions}, checked (with ajv) before a config file's adapter is created. */
export const openaiOptionsSchema: JsonSchema = {
  type: 'object',
  description: 'Options of the OpenAI-compatible Chat Completions adapter.',
  additionalProperties: false,
  required: ['model'],
  properties: {
    model: { type: 'string', minLength: 1, description: 'The model name; request.model overrides it per request.' },
    baseURL: baseURLOptionSchema('http://localhost:11434/v1', 'The API root without /chat/completions, without credentials. Default https://api.openai.com/v1.'),
    apiKeyEnv: apiKeyEnvOptionSchema('DEEPSEEK_API_KEY', 'Environment variable holding the API key. Default: OPENAI_API_KEY for api.openai.com, no key elsewhere.'),
    maxTokens: { type: 'integer', minimum: 1, description: 'Output-token limit.' },
    temperature: { type: 'number', minimum: 0, maximum: 2, description: 'Sampling temperature.' },
    reasoningEffort: { type: 'string', minLength: 1, description: 'reasoning_effort for reasoning models (low, medium, high…).' },
    headers: headersOptionSchema('Extra HTTP headers sent with every request. Never put a key here.'),
    ...deadlineOptionsSchema,
    maxTokensField: {
      enum: ['max_tokens', 'max_completion_tokens'],
      description: 'The request field that carries maxTokens. Default max_tokens.',
    },
    provider: {
      type: 'string',
      minLength: 1,
      description: 'Tags this server\'s reasoning blocks; reasoning is passed back only to the same provider. Default: from baseURL.',
    },
    reasoningPassback: {
      type: 'boolean',
      description: 'Send this provider\'s reasoning back as reasoning_content on assistant tool-call messages. Default true.',
    },
    streamOptions: {
      type: 'boolean',
      description: 'Send stream_options: { include_usage: true } (asks for the token usage). Default true. false for a server that refuses the field: usage is then only what the server sends unasked, often none.',
    },
  },
}
