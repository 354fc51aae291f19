/**
 * The secret values this process uses, so that text leaving it (events, the session file, error
 * answers, the terminal) can be masked by value — not only by shape (`maskCredentials`): a short or
 * word-like key (`hunter2`, `my-gateway-secret`) quoted back by a provider's 401 body has no shape.
 *
 * Registered: what is secret in the variables a config names through `…Env` options (the config
 * check, {@link registerEnvOptionSecrets}), the key an adapter reads (`apiKeyEnv`), and — for a
 * bridge whose provider package reads its own environment (`@bosun/adapter-ai-sdk`) — every
 * variable whose name says it holds a secret (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`…).
 * A plugin that reads a secret registers it with {@link registerSecret}. The values are only ever
 * compared, never printed or logged.
 */

/**
 * Values shorter than this are not registered: masking `secret` or `12345` wherever it appears
 * would hide ordinary words and numbers, and a key that short is no key.
 */
export const MIN_SECRET_LENGTH = 6

const MASK = '[redacted]'

/**
 * Kept on `globalThis` under a registered symbol: a plugin bundling its own copy of
 * `@bosun/core` registers into the set the CLI's copy masks with (as `BosunError.is` works across
 * copies).
 */
const KEY = Symbol.for('bosun.secretValues')
type Registry = { values: Set<string>; longestFirst: string[] | undefined; splitLines?: RegExp[] | undefined }
const registry: Registry = ((globalThis as Record<symbol, unknown>)[KEY] as Registry | undefined) ?? { values: new Set(), longestFirst: undefined }
;(globalThis as Record<symbol, unknown>)[KEY] = registry

/**
 * Environment variable names that say their value is a secret: `OPENAI_API_KEY`, `GITHUB_TOKEN`,
 * `CLIENT_SECRET`, `PGPASSWORD`, `AWS_SECRET_ACCESS_KEY`, `HF_TOKEN`…
 */
const SECRET_ENV_NAME = /(?:^|_)(?:(?:API_?)?KEY|TOKEN|SECRET|PASSWD|PASS|PASSPHRASE|CREDENTIALS?|AUTH)$|PASSWORD$|(?:^|_)API_?KEY_/i

/**
 * Registers `value` (trimmed, as adapters read keys) as a secret: from now on it is masked as
 * `[redacted]` in every error, event and output Bosun writes. A value shorter than
 * {@link MIN_SECRET_LENGTH} characters, empty or undefined is ignored. Registering twice is harmless.
 *
 * @example
 * const token = process.env[options.tokenEnv]
 * registerSecret(token)
 */
export function registerSecret(value: string | undefined): void {
  if (typeof value !== 'string') return
  const trimmed = value.trim()
  if (trimmed.length < MIN_SECRET_LENGTH || registry.values.has(trimmed)) return
  registry.values.add(trimmed)
  registry.longestFirst = undefined
}

/** An `…Env` option of a config: its key (`apiKeyEnv`) and the variable it names (`OPENAI_API_KEY`). */
export interface EnvOption {
  key: string
  name: string
}

/**
 * Registers what is secret in the variables `options` name, read from `env`. The whole value when
 * the option's key says it is a secret ({@link isSecretEnvOptionKey}: `apiKeyEnv`, `tokenEnv`,
 * `passwordEnv`) or the variable's name does ({@link isSecretEnvName}: `DEPLOY_SECRET`). Of any
 * other value (`regionEnv`, `baseUrlEnv`, a store's `urlEnv`) only the credentials it carries
 * ({@link credentialsIn}: a URL's password): masking a region, a host or a whole connection URL
 * would leave "could not connect to [redacted]", with nothing to tell which host failed.
 */
export function registerEnvOptionSecrets(options: Iterable<EnvOption>, env: Readonly<Record<string, string | undefined>> = process.env): void {
  for (const { key, name } of options) {
    const value = env[name]
    if (value === undefined) continue
    if (isSecretEnvOptionKey(key) || isSecretEnvName(name)) registerSecret(value)
    for (const credential of credentialsIn(value)) registerSecret(credential)
  }
}

/** True when the variable `name` says it holds a secret (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`…). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV_NAME.test(name)
}

/**
 * True when an `…Env` option's key says the variable it names holds a secret: the key without
 * `Env`, written as a variable's name (`apiKey` → `API_KEY`), is one {@link isSecretEnvName} knows —
 * `apiKeyEnv`, `keyEnv`, `tokenEnv`, `secretEnv`, `passwordEnv`, `credentialsEnv`, `authEnv`,
 * `accessKeyEnv`; not `urlEnv`, `baseUrlEnv`, `regionEnv`, `targetEnv`. The one rule, so that the
 * option's key and the variable's name are judged alike.
 */
export function isSecretEnvOptionKey(key: string): boolean {
  if (key.length <= 3 || !key.endsWith('Env')) return false
  const name = asVariableName(key.slice(0, -3))
  return isSecretEnvName(name) || SECRET_OPTION_WORD.test(name)
}

/**
 * Words that make an option's value a secret as a whole though no variable name ends in them: a
 * webhook URL is its own credential (`webhookUrlEnv`), a DSN holds its key (`sentryDsnEnv`), a
 * header or cookie value carries one (`authHeaderEnv`, `headersEnv`), and so does anything named
 * for authorization or a signature.
 */
const SECRET_OPTION_WORD = /(?:^|_)(?:WEBHOOKS?|DSN|HEADERS?|COOKIES?|SIGNATURE|AUTH(?:ORIZATION)?)(?:_|$)/

/**
 * Names of query (or connection-string) parameters that carry a credential: `api-key`, `key`,
 * `access_token`, `sig`, `X-Amz-Signature`… (`maskCredentials` masks a URL holding one by shape,
 * `credentialInUrl` refuses one written into a config).
 */
export const CREDENTIAL_PARAM = /^(?:x-[a-z]+-)?(?:api[-_]?key|key|(?:access|auth|id|refresh|session)?[-_]?token|sig|signature|(?:client[-_]?)?secret|password|passwd|credential)$/i

/**
 * A URL's user name that is a credential by its shape (`https://ghp_…@github.com`, a token as
 * the user): long, or of letters and digits both. Not `postgres`, `bosun` or `admin`, which would
 * mask a word everywhere.
 */
const TOKEN_USER = /^(?=[^:]*\d)(?=[^:]*[A-Za-z])[^:]{12,}$|^[^:]{24,}$/

/** `apiKey` → `API_KEY`, `openAIKey` → `OPEN_AI_KEY`, `base-url` → `BASE_URL`. */
function asVariableName(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[-.]/g, '_')
    .toUpperCase()
}

/** A URL's scheme and its userinfo: everything of the authority (which ends at `/`, `?` or `#`) up to its last `@`. */
const URL_USERINFO = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i
/** A `name=value` pair of a URL's query (`?password=…`) or of a connection string (`host=db password=…`, `Pwd=…;`). */
const PAIR = /(?:^|[?&;\s])([A-Za-z][\w.-]*)=([^&;\s#]+)/g

/**
 * The credentials `value` carries, each as written and percent-decoded: a URL's password
 * (`postgres://user:pw@host/db` → `pw`, never the host or database; `user:pw` when the password is
 * shorter than {@link MIN_SECRET_LENGTH}), a user name that is a token by its shape
 * (`https://ghp_…@github.com`, {@link TOKEN_USER}), and the value of every `name=value` pair — in
 * its query or in a connection string — whose name says it is a secret (`password`,
 * `sslpassword`, `access_token`, `api-key`, `sig`, `X-Amz-Signature`, ODBC's `Pwd`). `maskCredentials` masks
 * the same URLs by shape, whole: with the password registered first, it masks only that.
 */
export function credentialsIn(value: string): string[] {
  const text = value.trim()
  const found: string[] = []
  const userinfo = URL_USERINFO.exec(text)?.[1]
  const colon = userinfo?.indexOf(':') ?? -1
  if (userinfo !== undefined && colon >= 0) {
    // A password too short to register alone (it would mask a word) is masked with its user name.
    const password = userinfo.slice(colon + 1)
    found.push(percentDecoded(password).length >= MIN_SECRET_LENGTH ? password : userinfo)
  } else if (userinfo !== undefined && TOKEN_USER.test(percentDecoded(userinfo))) {
    found.push(userinfo)
  }
  for (const [, name, given] of text.matchAll(PAIR)) {
    const asName = asVariableName(name!)
    if (isSecretEnvName(asName) || asName === 'PWD' || CREDENTIAL_PARAM.test(name!)) found.push(given!)
  }
  return found.flatMap((written) => [written, percentDecoded(written)])
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * Registers the value of every variable of `env` whose name says it is a secret — for code that
 * cannot know which variable a key comes from (a provider package reading its own).
 */
export function registerSecretsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): void {
  for (const [name, value] of Object.entries(env)) if (isSecretEnvName(name)) registerSecret(value)
}

/**
 * `text` with every registered secret replaced by `[redacted]`. Returns `text` itself at once when
 * nothing is registered. Longer values are masked first, so that a secret containing another is
 * masked whole. A secret is also masked as it is written inside a quoted string — by
 * `util.inspect` (how logs print an error's fields) or by JSON (a provider's error body quoted in a
 * message): a key holding a quote, a backslash or a line break is escaped there, and would
 * otherwise not be found.
 */
export function maskSecretValues(text: string): string {
  if (registry.values.size === 0 || text.length < MIN_SECRET_LENGTH) return text
  if (registry.longestFirst === undefined || registry.splitLines === undefined) {
    // Both made anew whenever a value is added (by any copy of the core: each resets longestFirst).
    registry.longestFirst = [...new Set([...registry.values].flatMap(writtenForms))].sort((a, b) => b.length - a.length)
    registry.splitLines = [...registry.values].flatMap(splitLinesPattern)
  }
  let out = text
  for (const secret of registry.longestFirst) if (out.includes(secret)) out = out.split(secret).join(MASK)
  for (const pattern of registry.splitLines) if (out.includes(SPLIT_JOIN)) out = out.replace(pattern, MASK)
  return out
}

/** What util.inspect writes between two lines of a string it splits: the quote, ` +`, a line break, the indentation, a quote. */
const SPLIT_JOIN = ' +\n'

/**
 * A secret holding a line break (a PEM key, a service account's JSON) as `util.inspect` writes it
 * inside a long string (over ~`breakLength` characters: a provider's error body): split after each
 * line break into one quoted string per line, joined by `' +` and a new, indented line, each line
 * escaped for the quote inspect picks for it alone. None for a secret of one line.
 */
function splitLinesPattern(secret: string): RegExp[] {
  if (!secret.includes('\n')) return []
  const lines = secret.split('\n').map((line) => {
    const forms = new Set(["'", '"', '`'].map((quote) => escapeRegExp(inspectEscaped(line, quote))))
    return `(?:${[...forms].join('|')})`
  })
  return [new RegExp(lines.join(String.raw`\\n(?:['"\x60] \+\n *['"\x60])?`), 'g')]
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * `secret` as written raw and as escaped inside quoted strings: by JSON, by `util.inspect` for
 * each of the three quotes it may choose (which one depends on the whole string the secret sits
 * in, not on the secret), and by both (JSON inspected). Most secrets have only the raw form.
 */
function writtenForms(secret: string): string[] {
  if (!NEEDS_ESCAPE.test(secret)) return [secret]
  const json = JSON.stringify(secret).slice(1, -1)
  // Also JSON then inspect: a provider's JSON error body quoting the key, printed in an error's fields.
  const forms = [secret, json, ...["'", '"', '`'].flatMap((quote) => [inspectEscaped(secret, quote), inspectEscaped(json, quote)])]
  return forms.filter((form) => form.length >= MIN_SECRET_LENGTH)
}

const NEEDS_ESCAPE = /['"`\\\u0000-\u001f\u007f\ud800-\udfff]/
const SHORT_ESCAPES: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' }

/**
 * `text` as `util.inspect` writes it between `quote`s: the quote and the backslash backslashed,
 * `\b \t \n \f \r`, `\xHH` for other control characters and DEL, `\uhhhh` (lower case) for a lone surrogate.
 */
function inspectEscaped(text: string, quote: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    const code = char.charCodeAt(0)
    if (char === quote || char === '\\') out += `\\${char}`
    else if (SHORT_ESCAPES[char] !== undefined) out += SHORT_ESCAPES[char]
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) out += char + text[++i]
    else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16)}`
    else out += char
  }
  return out
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

/** Test-only: forgets every registered value. */
export function forgetSecretsForTesting(): void {
  registry.values.clear()
  registry.longestFirst = undefined
  registry.splitLines = undefined
}
