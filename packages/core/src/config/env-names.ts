import { looksLikeCredential } from './credentials.js'
import { plainStrings } from './plain-strings.js'

/**
 * Option keys ending in `Env` (`apiKeyEnv`, `urlEnv`, a plugin's `tokenEnv`) hold the NAME of an
 * environment variable, never the secret: the one rule for every such option, from a config file
 * (the secrets check) and from code (every options check against a schema), so that a key pasted
 * where the name belongs is refused before anything quotes it ("variable … is not set").
 */

/** Keys that name an environment variable (`apiKeyEnv`), but not a bare `env`. */
const ENV_KEY = /.Env$/
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The line of a refused `…Env` value; it never shows the value (it may be the key itself). */
export const ENV_NAME_REFUSED =
  'must name an environment variable (letters, digits and "_", like "MY_API_KEY"), not hold the key itself — ' +
  'put the key in a variable and name it here (the value given is not shown)'

/**
 * Why an `…Env` value is refused: {@link ENV_NAME_REFUSED}, or — for a variable's name written the
 * way a shell or a `.env` file refers to it (`$MY_KEY`, `${MY_KEY}`) — to drop the `$`. Only then
 * is the name quoted: it passed the same test as any other variable's name, so it holds no key.
 */
export function envNameRefusal(value: string): string {
  const name = /^\$(?:\{([^{}]*)\}|(.*))$/s.exec(value)
  const inner = name?.[1] ?? name?.[2]
  if (inner !== undefined && isEnvName(inner)) {
    return `must name an environment variable without "$": write ${JSON.stringify(inner)}, not ${JSON.stringify(value)} (Bosun reads the variable itself; nothing expands "$" in a config)`
  }
  return ENV_NAME_REFUSED
}

/** True for an option key whose value names an environment variable. */
export function isEnvOptionKey(key: string | number | undefined): key is string {
  return typeof key === 'string' && ENV_KEY.test(key)
}

/**
 * True when `value` can be the name of an environment variable: letters, digits and `_`, not
 * starting with a digit — and not looking like a credential (`ghp_…`, `AKIA…`, `gsk_…` and long
 * random runs pass the first test).
 */
export function isEnvName(value: string): boolean {
  return ENV_NAME.test(value) && !looksLikeCredential(value)
}

/** An `…Env` option whose value is not a variable's name: its keys in the options, and {@link envNameRefusal}. */
export interface EnvNameProblem {
  keys: (string | number)[]
  message: string
}

/**
 * The `…Env` options in `options` (at any depth of plain objects and arrays) that do not name a
 * variable — not looking inside what `schema` marks as data (`x-bosun-data`: a tool call's
 * arguments, where `targetEnv: "eu-west-1"` is the user's, not an option).
 */
export function envNameProblems(options: unknown, schema?: object): EnvNameProblem[] {
  return plainStrings(options, schema)
    .filter(({ keys, value, data }) => !data && isEnvOptionKey(keys.at(-1)) && !isEnvName(value))
    .map(({ keys, value }) => ({ keys, message: envNameRefusal(value) }))
}

/**
 * The variables `config`'s `…Env` options name — at any depth of its plain objects and arrays,
 * each once, in document order; values that are not a variable's name are left out. What a
 * command that runs other programs (`bosun plugins add`'s package manager) keeps from them.
 */
export function envVariablesNamed(config: unknown): string[] {
  return [...new Set(envOptionsIn(config).map(({ name }) => name))]
}

/**
 * The `…Env` options in `config`, each with its key (`apiKeyEnv`) and the variable it names —
 * each pair once, in document order; values that are not a variable's name are left out. The key
 * says what the variable holds: the config check registers a `tokenEnv`'s value as a secret, not
 * a `regionEnv`'s.
 */
export function envOptionsIn(config: unknown): { key: string; name: string }[] {
  const seen = new Set<string>()
  const options: { key: string; name: string }[] = []
  for (const { keys, value } of plainStrings(config)) {
    const key = keys.at(-1)
    if (!isEnvOptionKey(key) || !isEnvName(value) || seen.has(`${key}=${value}`)) continue
    seen.add(`${key}=${value}`)
    options.push({ key, name: value })
  }
  return options
}
