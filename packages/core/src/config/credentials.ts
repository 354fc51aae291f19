/**
 * Whether a string found in a config looks like a credential. The one judge for every config
 * error that quotes a found value (schema errors, unknown keys, "found …" descriptions, errors of
 * modules) — whatever key the value sits under: a key typed into `temperature` is still a key.
 *
 * Hiding is cheap and refusing is not, so there are two questions: {@link looksLikeCredential}
 * (never quote it; a false positive only costs a quote) and {@link credentialInUrl} (refuse the
 * value; a URL that carries a credential in its userinfo or query is one beyond doubt).
 */
import { CREDENTIAL_PARAM, maskSecretValues } from './secret-values.js'

/**
 * Key prefixes providers give their credentials: OpenAI and Anthropic (`sk-`, `sk-ant-`,
 * `sk-proj-`), Stripe (`sk_live_`, `pk_`, `rk_`), Groq, xAI, Google (`AIza`, `ya29.`), GitHub,
 * GitLab, Slack, Hugging Face, Replicate, Perplexity, AWS access key ids, npm.
 */
const KEY_PREFIX =
  /^(?:sk-|sk_|pk_|rk_|gsk_|xai-|AIza|ya29\.|gh[pousr]_|github_pat_|glpat-|xox[abpr]-|xapp-|hf_|r8_|pplx-|AKIA|ASIA|npm_)[\w.+/=-]{8,}$/
/** An authorization header's value: `Bearer …`, `Basic …`, `Token …`. */
const AUTH_SCHEME = /^(?:bearer|basic|token)\s+\S{8,}/i
/** A JSON Web Token: three base64url parts, the first an encoded `{"`. */
const JWT = /^eyJ[\w-]{8,}\.[\w-]{8,}\./

/** True when `value` (or a word of it) looks like a credential, or holds a registered secret; such a value is never quoted. */
export function looksLikeCredential(value: string): boolean {
  if (maskSecretValues(value) !== value) return true
  const trimmed = value.trim()
  if (AUTH_SCHEME.test(trimmed)) return true
  return trimmed.split(/[\s"'`,;()<>[\]{}]+/).some((word) => word !== '' && credentialWord(word))
}

/**
 * What credential a URL in `value` carries — `userinfo` (`https://user:key@host`) or `query`
 * (`?api-key=…`, `#access_token=…`) — or `undefined`. A value holding one is refused outright: a
 * URL is sent and logged as it is written.
 */
export function credentialInUrl(value: string): 'userinfo' | 'query' | undefined {
  for (const word of value.trim().split(/\s+/)) {
    const url = parseUrl(word)
    if (url === undefined) continue
    if (url.username !== '' || url.password !== '') return 'userinfo'
    const params = [...url.searchParams, ...new URLSearchParams(url.hash.slice(1))]
    if (params.some(([name, given]) => given !== '' && CREDENTIAL_PARAM.test(name))) return 'query'
  }
  return undefined
}

/** What to do instead of writing a credential into a config, for the end of a message. */
export const KEEP_CREDENTIALS_OUT =
  'put the key in an environment variable and name that variable with the adapter\'s "apiKeyEnv" option (or a plugin\'s own …Env option)'

/** A found string as a message quotes it — at most 40 characters — or, when it looks like a credential, a description without it. */
export function quoteFound(value: string): string {
  if (looksLikeCredential(value)) return `a string that looks like a credential, not shown: ${KEEP_CREDENTIALS_OUT}`
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
}

/**
 * A module's own text (the message of an error it threw, a provider's error) with every secret
 * this process uses (`registerSecret`: the values of the `…Env` variables, the adapters' keys) and
 * every word that looks like a credential replaced by `[redacted]`: such text is quoted into config
 * and model errors, and a module or a server may well have quoted the key. A sentence's end after
 * the key (`…provided: sk-…. You can`) is kept when the word is a credential without it.
 */
export function maskCredentials(text: string): string {
  return maskSecretValues(text)
    .replace(/\b(bearer)(\s+)\S{8,}/gi, '$1$2[redacted]')
    .replace(/[^\s"'`,;()<>[\]{}]+/g, (word) => {
      if (!credentialWord(word)) return word
      const end = /[.:!?]+$/.exec(word)?.[0] ?? ''
      return end !== '' && end !== word && credentialWord(word.slice(0, -end.length)) ? `[redacted]${end}` : '[redacted]'
    })
}

/**
 * True when the message of `error`, or of an error in its `cause` chain, holds something that
 * looks like a credential. Such an error is not kept as a config error's cause: causes are
 * printed whole (`bosun --debug`, `util.inspect`) and cannot be cleaned reliably.
 */
export function mentionsCredential(error: unknown, depth = 0): boolean {
  if (depth > 8 || typeof error !== 'object' || error === null) return typeof error === 'string' && maskCredentials(error) !== error
  const { message, cause } = error as { message?: unknown; cause?: unknown }
  return (typeof message === 'string' && maskCredentials(message) !== message) || mentionsCredential(cause, depth + 1)
}

function credentialWord(word: string): boolean {
  // A key runs to the first character no key has: `ghp_…=…` (a message's "export <name>=…") is one.
  const leading = /^[\w.+/=-]*/.exec(word)![0]
  if (KEY_PREFIX.test(word) || KEY_PREFIX.test(leading) || JWT.test(word) || credentialInUrl(word) !== undefined || schemelessUrlCredential(word) || unparsableUrlCredential(word)) return true
  if (connectionStringCredential(word)) return true
  // Long random runs: split where a URL, a path or a model name would (`/`, `.`, `-`, `@`, `?`…),
  // so that `meta-llama/Llama-3.3-70B-Instruct` is short words, while a random key stays long runs.
  return word.split(/[/.:@?&=#%!|\\_+-]+/).some(randomRun)
}

/**
 * A run of letters and digits that reads as random rather than as words: hexadecimal of 32 or
 * more, or 16 or more of lower case, upper case and digits that change class at least 4 times in
 * 10 (random base62 changes about 6 times in 10; `CamelCaseName2024` about twice).
 */
function randomRun(run: string): boolean {
  if (run.length < 16 || !/^[A-Za-z0-9]+$/.test(run)) return false
  if (run.length >= 32 && /^[0-9a-f]+$/i.test(run) && /\d/.test(run) && /[a-f]/i.test(run)) return true
  if (!/[a-z]/.test(run) || !/[A-Z]/.test(run) || !/\d/.test(run)) return false
  let changes = 0
  for (let i = 1; i < run.length; i++) if (charClass(run[i]!) !== charClass(run[i - 1]!)) changes++
  return changes / (run.length - 1) >= 0.4
}

function charClass(char: string): number {
  return char >= 'a' && char <= 'z' ? 0 : char >= 'A' && char <= 'Z' ? 1 : 2
}

/**
 * A `name=value` pair of a connection string that is not a URL (libpq's `host=db password=…`,
 * ODBC's `PWD=…`, .NET's `Password=…;`) whose name is a credential parameter's.
 */
function connectionStringCredential(word: string): boolean {
  const pair = /^([A-Za-z][\w.-]*)=(.+)$/.exec(word)
  return pair !== null && (CREDENTIAL_PARAM.test(pair[1]!) || /^pwd$/i.test(pair[1]!))
}

/**
 * A URL written without its scheme that carries a credential: `user:key@host/v1`,
 * `host/v1?api-key=…` (only worth hiding: such a value is refused anyway, as not a URL).
 */
function schemelessUrlCredential(word: string): boolean {
  if (!/[@?#]/.test(word) || /^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return false
  const url = parseUrl(`http://${word}`)
  if (url === undefined) return false
  if (url.password !== '') return true
  return credentialInUrl(url.href) === 'query'
}

/**
 * A URL that does not parse (a bad port or host: the value an options check refuses, saying what
 * it found) whose userinfo, query or fragment carries a credential — read again with a stand-in
 * host; one that still does not parse is not quoted if it has any of them.
 */
function unparsableUrlCredential(word: string): boolean {
  if (!/[@?#]/.test(word) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(word) || parseUrl(word) !== undefined) return false
  const standIn = parseUrl(word.replace(/^([a-z][a-z0-9+.-]*:\/\/)((?:[^/?#@]*@)?)[^/?#]*/i, '$1$2host.invalid'))
  return standIn === undefined || credentialInUrl(standIn.href) !== undefined
}

function parseUrl(word: string): URL | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return undefined
  try {
    return new URL(word)
  } catch {
    return undefined
  }
}
