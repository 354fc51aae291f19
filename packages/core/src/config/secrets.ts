import { childPath } from './problems.js'

/**
 * Keys whose string value would be a credential: option names (`apiKey`, `accessToken`,
 * `clientSecret`) and the HTTP headers that carry one (`Authorization`, `x-api-key`,
 * `Ocp-Apim-Subscription-Key`, `Cookie`). `authorization` and `cookie` only as a whole word, so that
 * `requireAuthorization` or `sessionCookie` (a name, a flag) are not taken for one.
 */
const SECRET_KEY = /((api|access|subscription|secret|private)[-_]?key|token|secret|password|(^|[-_])(authorization|cookie))$/i
/** Keys that name an environment variable (`apiKeyEnv`), but not a bare `env`. */
const ENV_KEY = /.Env$/
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export interface SecretFinding {
  path: string
  message: string
  /** A literal secret: schema errors at this path are not reported (they could show the value). */
  literal: boolean
}

/**
 * Walks an entry's options (plain objects and arrays): a string under a secret-looking key is
 * refused (it would end up in version control and logs), and every `…Env` key must name a
 * variable that is set. Messages name the key and the variable, never a value.
 */
export function checkSecrets(options: unknown, path: string, env: Readonly<Record<string, string | undefined>>): SecretFinding[] {
  const findings: SecretFinding[] = []
  walk(options, path, env, findings, new Set())
  return findings
}

function walk(
  value: unknown,
  path: string,
  env: Readonly<Record<string, string | undefined>>,
  findings: SecretFinding[],
  seen: Set<object>,
): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return
  // Only what a config spells out: an object made by a constructor (an AI SDK model, a client)
  // keeps its own fields, which could look like secrets without being written in the file.
  if (!Array.isArray(value) && !isPlainObject(value)) return
  seen.add(value)
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, childPath(path, index), env, findings, seen))
    return
  }
  for (const [key, item] of Object.entries(value)) {
    const at = childPath(path, key)
    if (typeof item === 'string' && SECRET_KEY.test(key)) {
      findings.push({
        path: at,
        literal: true,
        message:
          'a literal secret in a config file is refused (it would end up in version control and logs). ' +
          (isHeaders(path)
            ? 'Headers are for routing and attribution: give the provider\'s key through the adapter\'s "apiKeyEnv" option, which reads it from the environment (no other credential can come from a config file).'
            : `Put it in an environment variable and name it: "${key}Env": "MY_${screamingSnake(key)}".`),
      })
    } else if (typeof item === 'string' && ENV_KEY.test(key) && !ENV_NAME.test(item)) {
      findings.push({
        path: at,
        literal: true,
        message:
          'must name an environment variable (letters, digits and "_", like "MY_API_KEY"); the value given is not a variable name, ' +
          'so it is not shown. Put the secret itself in the environment.',
      })
    } else if (typeof item === 'string' && ENV_KEY.test(key) && !env[item]) {
      findings.push({
        path: at,
        literal: false,
        message: `environment variable ${JSON.stringify(item)} is not set. Set it where bosun runs (export ${item}=…), or name another variable.`,
      })
    } else {
      walk(item, at, env, findings, seen)
    }
  }
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** True for the path of a `headers` object (its keys are header names, not option names). */
function isHeaders(path: string): boolean {
  return /\.headers$|\["headers"\]$/i.test(path)
}

function screamingSnake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()
}
