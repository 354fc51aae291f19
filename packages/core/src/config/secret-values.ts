/**
 * The secret values this process uses, so that text leaving it (events, the session file, error
 * answers, the terminal) can be masked by value — not only by shape (`maskCredentials`): a short or
 * word-like key (`hunter2`, `my-gateway-secret`) quoted back by a provider's 401 body has no shape.
 *
 * Registered: the values of the variables a config names through `…Env` options (the config
 * check), the key an adapter reads (`apiKeyEnv`), and — for a bridge whose provider package reads
 * its own environment (`@bosun/adapter-ai-sdk`) — every variable whose name says it holds a secret
 * (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`…). A plugin that reads a secret registers it
 * with {@link registerSecret}. The values are only ever compared, never printed or logged.
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
type Registry = { values: Set<string>; longestFirst: string[] | undefined }
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

/** Registers the values of `names` in `env` (the variables a config's `…Env` options name). */
export function registerSecretsNamed(names: Iterable<string>, env: Readonly<Record<string, string | undefined>> = process.env): void {
  for (const name of names) registerSecret(env[name])
}

/** True when the variable `name` says it holds a secret (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`…). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV_NAME.test(name)
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
 * masked whole.
 */
export function maskSecretValues(text: string): string {
  if (registry.values.size === 0 || text.length < MIN_SECRET_LENGTH) return text
  registry.longestFirst ??= [...registry.values].sort((a, b) => b.length - a.length)
  let out = text
  for (const secret of registry.longestFirst) if (out.includes(secret)) out = out.split(secret).join(MASK)
  return out
}

/** Test-only: forgets every registered value. */
export function forgetSecretsForTesting(): void {
  registry.values.clear()
  registry.longestFirst = undefined
}
