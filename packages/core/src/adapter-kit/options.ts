import type { JsonSchema, OptionsProblem } from '../schema.js'

/** A header name: an HTTP token. */
const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"

/**
 * The JSON Schema of an HTTP adapter's `baseURL` option: `http(s)://`, no spaces, no
 * `user:password@` (the key belongs in the environment) and no `#fragment` (fetch never sends one,
 * and one may hold a token). A value that breaks it is reported with the sentence, not the
 * regular expression; what the pattern cannot tell (that the URL parses) is {@link adapterOptionProblems}'.
 */
export function baseURLOptionSchema(example: string, description: string): JsonSchema {
  return {
    // The pattern in one anyOf branch, for the sentence: a failed anyOf (like a failed type) is
    // reported with `x-expected`, not with the regular expression; `type` stays outside for tools
    // that read the schema (`bosun plugins info`).
    type: 'string',
    anyOf: [{ pattern: '^https?://[^\\s/?#@]+([/?][^\\s#]*)?$' }],
    'x-expected': `a URL that starts with http:// or https:// (no spaces, no user:password@, no #fragment), e.g. ${JSON.stringify(example)}`,
    description,
  }
}

/** The JSON Schema of an adapter's `apiKeyEnv` option: the name of an environment variable (never the key; a value that breaks it is not shown). */
export function apiKeyEnvOptionSchema(example: string, description: string): JsonSchema {
  return {
    type: 'string',
    anyOf: [{ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }],
    'x-expected': `the name of an environment variable (letters, digits and "_"), like ${JSON.stringify(example)}`,
    description,
  }
}

/** The JSON Schema of an adapter's `headers` option: header names and single-line string values. */
export function headersOptionSchema(description: string): JsonSchema {
  return {
    type: 'object',
    propertyNames: { pattern: HEADER_NAME, 'x-expected': "an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)" },
    additionalProperties: { type: 'string', anyOf: [{ pattern: '^[^\\r\\n]*$' }], 'x-expected': 'a string without line breaks' },
    description,
  }
}

/**
 * What an adapter's options schema cannot say about `baseURL` and `headers`, for options the
 * schema has passed: the URL parses, and each header is one `fetch` accepts. Problems in the
 * words of the schema's (see `optionsError`); a header's value is never shown.
 */
export function adapterOptionProblems(options: { baseURL?: unknown; headers?: unknown }, example: string): OptionsProblem[] {
  const problems: OptionsProblem[] = []
  const { baseURL, headers } = options
  // Parsed now: the request URL is made from it, and URL's own error would quote it whole.
  if (typeof baseURL === 'string' && !URL.canParse(baseURL)) {
    problems.push({ keys: ['baseURL'], message: `must be a URL that parses (a valid host and port), e.g. ${JSON.stringify(example)}`, found: baseURL })
  }
  for (const [name, value] of typeof headers === 'object' && headers !== null ? Object.entries(headers) : []) {
    if (FETCH_OWNED_HEADERS.has(name.toLowerCase())) {
      problems.push({ keys: ['headers', name], message: `cannot be set: fetch writes "${name.toLowerCase()}" itself, and refuses every request that gives it (remove it)` })
      continue
    }
    try {
      new Headers([[name, String(value)]])
    } catch {
      // Headers' own message quotes the value, which may be a key with a stray character.
      problems.push({ keys: ['headers', name], message: 'must be a header fetch can send: a token for a name, a value of Latin-1 characters without line breaks or NUL (the value is not shown)' })
    }
  }
  return problems
}

/**
 * Names `new Headers` accepts but Node's fetch (undici) refuses at send time or gets wrong: every
 * request of an adapter configured with one would fail (a retried TRANSPORT error) or wait for a
 * body length that never comes. fetch frames the body and the connection itself.
 */
const FETCH_OWNED_HEADERS = new Set(['transfer-encoding', 'keep-alive', 'upgrade', 'expect', 'content-length'])
