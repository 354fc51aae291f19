import { maskSecretValues } from '@bosun/core'
import { looksLikeCredential } from '@bosun/core/config'

/** Option keys whose values are never printed (a key ending in `Env` names a variable and is shown). */
const SECRET_KEY = /(api[-_]?key|apikey|token|secret|password|passwd|passphrase|credential|authorization|auth|cookie|private[-_]?key|session[-_]?key)$/i

/** Values that look like credentials whatever their key: provider key prefixes, bearer tokens, JWTs, long random strings. */
const SECRET_VALUE = [
  /^(sk|pk|rk)[-_][A-Za-z0-9_-]{8,}/,
  /^(ghp|gho|ghu|ghs|github_pat|glpat|xox[abpr]|AKIA|AIza)[-_A-Za-z0-9]{8,}/,
  /^bearer\s+\S{8,}/i,
  /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
  /^[A-Za-z0-9+/_-]{32,}={0,2}$/,
]

const REDACTED = '<redacted>'

/** True when printing `value` under `key` could leak a secret. */
export function looksSecret(key: string, value: unknown): boolean {
  if (/Env$/.test(key)) return false
  if (SECRET_KEY.test(key) && value !== undefined && value !== null && value !== '') return true
  // The core's judge too (the one config errors use): a connection string's `Password=…`, a URL's
  // `user:pass@` or `?api-key=`, a key inside a longer string.
  // And a registered secret by value (an `…Env` variable's, an adapter's key), whatever its shape.
  return typeof value === 'string' && (SECRET_VALUE.some((pattern) => pattern.test(value.trim())) || looksLikeCredential(value) || maskSecretValues(value) !== value)
}

/**
 * A copy of `options` fit to print: values that look like secrets (by key or by shape) become
 * `<redacted>`, at any depth; `…Env` keys keep their value, which is a variable's name.
 */
export function redact(value: unknown, key = ''): unknown {
  if (looksSecret(key, value)) return REDACTED
  if (Array.isArray(value)) return value.map((item) => redact(item, key))
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, k)]))
  }
  return value
}

/** `key: value` pairs of redacted options on one line, long values cut: `baseURL: "https://…", apiKeyEnv: "OPENAI_API_KEY"`. */
export function describeOptions(options: unknown, max = 60): string {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return JSON.stringify(redact(options)) ?? ''
  return Object.entries(options)
    .map(([key, value]) => {
      const shown = redact(value, key)
      if (Array.isArray(shown) && JSON.stringify(shown).length > max) return `${key}: [${shown.length} item${shown.length === 1 ? '' : 's'}]`
      const text = JSON.stringify(shown) ?? String(shown)
      return `${key}: ${text.length > max ? `${text.slice(0, max - 1)}…` : text}`
    })
    .join(', ')
}
