import { credentialInUrl, KEEP_CREDENTIALS_OUT } from './credentials.js'
import { envNameRefusal, isEnvName, isEnvOptionKey } from './env-names.js'
import { plainStrings } from './plain-strings.js'
import { childPath } from './problems.js'

/**
 * Keys whose string value would be a credential: option names (`apiKey`, `accessToken`,
 * `clientSecret`) and the HTTP headers that carry one (`Authorization`, `x-api-key`,
 * `Ocp-Apim-Subscription-Key`, `Cookie`). `authorization` and `cookie` only as a whole word, so that
 * `requireAuthorization` or `sessionCookie` (a name, a flag) are not taken for one.
 */
const SECRET_KEY = /((api|access|subscription|secret|private)[-_]?key|token|secret|password|(^|[-_])(authorization|cookie))$/i

/**
 * Whether an options error may quote the value found at `keys` (its path in the options): not
 * under a secret-looking key, a `…Env` key (a key pasted where a variable's name belongs) or a
 * `headers` object (a header may carry a key), nor `headers` itself (given as a string or an array
 * of header lines, it holds their values) — whatever the value looks like.
 */
export function mayQuoteValueAt(keys: readonly (string | number)[]): boolean {
  const key = keys.at(-1)
  if (typeof key !== 'string') return true
  return !SECRET_KEY.test(key) && !isEnvOptionKey(key) && !HEADERS.test(key) && !(typeof keys.at(-2) === 'string' && HEADERS.test(keys.at(-2) as string))
}

const HEADERS = /^headers$/i

export interface SecretFinding {
  path: string
  message: string
  /** A literal secret: schema errors at this path are not reported (they could show the value). */
  literal: boolean
}

/**
 * Walks an entry's options (plain objects and arrays): a string under a secret-looking key is
 * refused (it would end up in version control and logs), so is a URL that carries a credential
 * under any key, and every `…Env` key must name a variable that is set. Messages name the key and
 * the variable, never a value (nor a variable "name" that is a pasted key). With the entry's
 * options `schema`, what it marks as data (`x-bosun-data`) is checked for URLs with a credential
 * alone: its keys are the user's.
 */
export function checkSecrets(options: unknown, path: string, env: Readonly<Record<string, string | undefined>>, schema?: object): SecretFinding[] {
  const findings: SecretFinding[] = []
  for (const { keys, value, data } of plainStrings(options, schema)) {
    // In the user's data a key is the data's own (not an option), but a URL carrying a credential
    // is one whatever its key: that check alone applies there.
    const key = data ? undefined : keys.at(-1)
    const at = keys.reduce<string>((parent, child) => childPath(parent, child), path)
    const parent = keys.slice(0, -1).reduce<string>((above, child) => childPath(above, child), path)
    const twin = typeof key === 'string' && keys.length === 1 && hasOption(schema, `${key}Env`) ? `${key}Env` : undefined
    const finding = inspectString(typeof key === 'string' ? key : undefined, value, at, parent, env, twin)
    if (finding !== undefined) findings.push(finding)
  }
  return findings
}

/** The finding for a string at `at` (under `key`, or an array item), if it is one. */
function inspectString(
  key: string | undefined,
  value: string,
  at: string,
  parent: string,
  env: Readonly<Record<string, string | undefined>>,
  envTwin?: string,
): SecretFinding | undefined {
  if (key !== undefined && SECRET_KEY.test(key)) {
    const what = isHeaders(parent)
      ? 'Headers are for routing and attribution: give the provider\'s key through the adapter\'s "apiKeyEnv" option, which reads it from the environment (no other credential can come from a config file).'
      : `Put it in an environment variable and name it: "${key}Env": "MY_${screamingSnake(key)}".`
    return { path: at, literal: true, message: `a literal secret in a config file is refused (it would end up in version control and logs). ${what}` }
  }
  if (isEnvOptionKey(key) && !isEnvName(value)) return { path: at, literal: true, message: envNameRefusal(value) }
  const inUrl = credentialInUrl(value)
  if (inUrl !== undefined) {
    const where = inUrl === 'userinfo' ? 'before the host (user:key@)' : 'in a query parameter (such as ?api-key=…)'
    // An option that takes the whole URL from a variable (a store's `urlEnv`) is the way out, not
    // an adapter's `apiKeyEnv`, which an entry without one does not have.
    const instead = envTwin === undefined
      ? `Remove the credential from the URL and ${KEEP_CREDENTIALS_OUT}.`
      : `Put the whole URL in an environment variable and name that variable with "${envTwin}" instead of "${key}": "${envTwin}": "MY_${screamingSnake(key!)}".`
    return {
      path: at,
      literal: true,
      message:
        `holds a URL with a credential ${where}; it is refused (it would end up in version control and logs) and not shown. ${instead}`,
    }
  }
  if (isEnvOptionKey(key) && !env[value]) {
    return {
      path: at,
      literal: false,
      message: `environment variable ${JSON.stringify(value)} is not set. Set it where bosun runs (export ${value}=…), or name another variable.`,
    }
  }
  return undefined
}

/** Whether the options' schema names the top-level option `name`. */
function hasOption(schema: object | undefined, name: string): boolean {
  const properties = (schema as { properties?: unknown } | undefined)?.properties
  return typeof properties === 'object' && properties !== null && Object.hasOwn(properties, name)
}

/** True for the path of a `headers` object (its keys are header names, not option names). */
function isHeaders(path: string): boolean {
  return /\.headers$|\["headers"\]$/i.test(path)
}

function screamingSnake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()
}
