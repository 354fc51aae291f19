import type { ModelErrorCode } from '@bosun/core'

/**
 * What a refusal that came through the bridge says to do, appended to its message as the native
 * adapters append theirs (`… answered HTTP 401: Incorrect API key provided. (check …)`). The
 * provider's own words say what happened; without these a bridged 401, 404 or context-window
 * error left the user to guess which setting to change. The bridge does not know where the
 * provider got its key, so the AUTH words name the places a provider package looks.
 */

/**
 * The variable each provider package of the AI SDK reads when it is given no `apiKey`, by the
 * first segment of its provider id (`anthropic.messages` → `anthropic`).
 */
const DEFAULT_KEY_VARIABLES: Readonly<Record<string, readonly [variable: string, pkg: string]>> = {
  openai: ['OPENAI_API_KEY', '@ai-sdk/openai'],
  anthropic: ['ANTHROPIC_API_KEY', '@ai-sdk/anthropic'],
  google: ['GOOGLE_GENERATIVE_AI_API_KEY', '@ai-sdk/google'],
  mistral: ['MISTRAL_API_KEY', '@ai-sdk/mistral'],
  xai: ['XAI_API_KEY', '@ai-sdk/xai'],
  deepseek: ['DEEPSEEK_API_KEY', '@ai-sdk/deepseek'],
  groq: ['GROQ_API_KEY', '@ai-sdk/groq'],
}

/** The native adapters' words for these codes (`@bosun/core`'s HTTP error kit), so a swap reads the same. */
const CONTEXT_WINDOW_HINT = ' (the conversation is longer than the model accepts: compact it or start a new session)'
export const QUOTA_HINT = ' (the account has no quota left: check its plan and billing; retrying will not help)'

/** ` (check the API key the provider was created with: …)`, naming the provider package's default variable when known. */
export function authHint(provider: string): string {
  const known = DEFAULT_KEY_VARIABLES[provider.split('.')[0] ?? '']
  const variable = known === undefined ? '' : ` (${known[0]} for ${known[1]})`
  return ` (check the API key the provider was created with: its apiKey option, or the environment variable it reads by default${variable})`
}

/**
 * The words for an error of `code`: AUTH, a context window exceeded, and — for an HTTP 404
 * (`status`) — the model's name and the provider's baseURL, the two things a 404 of a model
 * request points at. Empty for the rest: a rate limit or a server error passes with time (the retry
 * plugin's business), and an invalid request's own message says what was wrong.
 */
export function whatToDo(code: ModelErrorCode, provider: string, status?: number, modelId?: string): string {
  if (code === 'AUTH') return authHint(provider)
  if (code === 'CONTEXT_WINDOW_EXCEEDED') return CONTEXT_WINDOW_HINT
  if (status === 404) return modelId === undefined ? " (check the model name and the provider's baseURL)" : ` (check the model name ${JSON.stringify(modelId)} and the provider's baseURL)`
  return ''
}
