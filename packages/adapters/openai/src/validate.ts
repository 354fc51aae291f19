import { invalidArgument } from '@bosun/core'
import type { OpenAIOptions } from './options.js'

// Hand-written twin of `openaiOptionsSchema`, so that `openai()` called from code reports
// mistakes as precisely as the config loader does, e.g.
// `openai(): temperature must be a number from 0 to 2 (found 3)`.

const optionKeys = [
  'model', 'baseURL', 'apiKeyEnv', 'maxTokens', 'temperature', 'reasoningEffort', 'headers', 'idleTimeoutMs', 'timeoutMs',
  'maxTokensField', 'provider', 'reasoningPassback',
]

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const KEY_ADVICE = 'Put the API key in an environment variable and name it with "apiKeyEnv" (default OPENAI_API_KEY for api.openai.com)'

function fail(path: string, problem: string): never {
  throw invalidArgument(`openai(): ${path} ${problem}`, { path })
}

/** Short description of a found value, for messages (never the whole value). */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'function') return 'a function'
  return String(value)
}

/**
 * A base URL as a message may quote it: not one that may carry a credential (`user:key@`, a
 * query or fragment), since the first 40 characters of `https://user:key@host` are the key.
 */
function describeURL(value: unknown): string {
  return typeof value === 'string' && /[@?#]/.test(value) ? 'a value that is not shown: it may hold a credential' : describe(value)
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function check(options: Record<string, unknown>, key: string, ok: (v: unknown) => boolean, expected: string): void {
  const value = options[key]
  if (value !== undefined && !ok(value)) fail(key, `must be ${expected} (found ${describe(value)})`)
}

const isNonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0
const isPositiveInteger = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 1

function isHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string' || !/^https?:\/\/\S+$/.test(v)) return false
  try {
    const url = new URL(v)
    return url.username === '' && url.password === '' // credentials belong in apiKeyEnv
  } catch {
    return false
  }
}

/** Checks the options of `openai()`; throws `INVALID_ARGUMENT` naming the option. */
export function validateOptions(input: unknown): OpenAIOptions {
  if (!isObject(input)) throw invalidArgument(`openai(): options must be an object with at least "model" (found ${describe(input)})`)
  for (const key of Object.keys(input)) {
    if (!optionKeys.includes(key)) fail(key, `is not a known option (known: ${optionKeys.join(', ')})`)
  }
  if (!isNonEmptyString(input.model)) fail('model', `must be a non-empty string (found ${describe(input.model)})`)
  if (typeof input.baseURL === 'string' && !/^https?:\/\//i.test(input.baseURL)) {
    fail('baseURL', `must start with http:// or https://, e.g. "http://localhost:11434/v1" (found ${describeURL(input.baseURL)})`)
  }
  if (input.baseURL !== undefined && !isHttpUrl(input.baseURL)) {
    fail('baseURL', `must be an http(s) URL without credentials, such as "https://api.deepseek.com" (found ${describeURL(input.baseURL)})`)
  }
  // fetch never sends a fragment: one here does nothing but may hold a token (`#access_token=…`).
  if (typeof input.baseURL === 'string' && input.baseURL.includes('#')) {
    fail('baseURL', `must not have a #fragment (the value given is not shown): it is never sent to the server. ${KEY_ADVICE}`)
  }
  // The value of apiKeyEnv is a name, not a secret, but a key pasted here by mistake must not be echoed.
  if (input.apiKeyEnv !== undefined && !(typeof input.apiKeyEnv === 'string' && ENV_NAME.test(input.apiKeyEnv))) {
    fail('apiKeyEnv', 'must name an environment variable (letters, digits and "_", like "DEEPSEEK_API_KEY"); the value given is not shown')
  }
  check(input, 'maxTokens', isPositiveInteger, 'a positive integer')
  check(input, 'temperature', (v) => typeof v === 'number' && v >= 0 && v <= 2, 'a number from 0 to 2')
  check(input, 'reasoningEffort', isNonEmptyString, 'a non-empty string')
  check(input, 'idleTimeoutMs', isPositiveInteger, 'a positive integer (milliseconds)')
  check(input, 'timeoutMs', isPositiveInteger, 'a positive integer (milliseconds)')
  check(input, 'maxTokensField', (v) => v === 'max_tokens' || v === 'max_completion_tokens', '"max_tokens" or "max_completion_tokens"')
  check(input, 'provider', isNonEmptyString, 'a non-empty string')
  check(input, 'reasoningPassback', (v) => typeof v === 'boolean', 'a boolean')
  if (input.headers !== undefined) {
    if (!isObject(input.headers)) fail('headers', `must be an object of strings (found ${describe(input.headers)})`)
    for (const [name, value] of Object.entries(input.headers)) {
      if (typeof value !== 'string') fail(`headers.${name}`, `must be a string (found ${describe(value)})`)
      try {
        new Headers([[name, value]])
      } catch {
        fail(`headers.${name}`, 'is not a valid HTTP header (name a token, value without line breaks)')
      }
    }
  }
  return input as unknown as OpenAIOptions
}
