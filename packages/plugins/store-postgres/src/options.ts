import { assertOptions, ErrorCodes, optionsError } from '@bosun/core'
import type { JsonSchema } from '@bosun/core'
import { urlShapeProblem } from './url-shape.js'

/** Options of the PostgreSQL store; the same shape is accepted from a config file. */
export interface PostgresStoreOptions {
  /**
   * The connection URL (`postgres://user@host:5432/db`). From code it may carry a password; in a
   * config file a URL with a password (or any credential) is refused by the config loader: use
   * `urlEnv`. Give `url` or `urlEnv`, not both.
   */
  url?: string
  /** The environment variable that holds the connection URL, e.g. `BOSUN_PG_URL`. */
  urlEnv?: string
  /** The PostgreSQL schema that holds the tables, created if missing. Default `bosun`. */
  schema?: string
  /** Connections in the pool (write-behind batches of different sessions commit in parallel). Default 10. */
  poolSize?: number
  /**
   * `statement_timeout` of every connection, in ms; the client also waits at most this and 1 s
   * more for the database to answer a statement, open a connection or free a pooled one (a
   * database that stops answering), then fails the call with STORE. 0 for neither. Default 30 000.
   */
  statementTimeoutMs?: number
  /** How long a session's lease lasts without renewal, in ms; renewed every third of it. Default 30 000. */
  leaseTtlMs?: number
  /** How long appends are gathered before the writer commits them as one transaction, in ms. Default 4. */
  batchWindowMs?: number
  /**
   * This store's name in lease rows (what SESSION_LOCKED shows to others). Default
   * `<hostname>:<pid>:<random>`; every store instance must have its own.
   */
  owner?: string
}

/** A timer's longest wait in ms (and statement_timeout's largest): Node fires a longer one after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * How much longer than `statementTimeoutMs` the client waits for an answer before it gives up on
 * the database (database.ts): long enough for the server's own timeout error, which says why, to
 * arrive first from a server that answers.
 */
export const ANSWER_GRACE_MS = 1000

const URL_EXPECTED = 'a URL that starts with postgres:// or postgresql://'

/**
 * The JSON Schema of {@link PostgresStoreOptions}: what a config file's options are checked
 * against, and `postgresStore()`'s from code (the one source of the rules).
 */
export const postgresStoreOptionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    // The pattern in an anyOf branch, for the sentence (x-expected) instead of the regular expression.
    // writeOnly: an error never shows it (from code it may hold a password, in a form no credential pattern knows: `host=… password=…`).
    url: { type: 'string', writeOnly: true, anyOf: [{ pattern: '^postgres(ql)?://' }], 'x-expected': URL_EXPECTED, description: 'Connection URL without a password (use urlEnv for one with credentials).' },
    urlEnv: {
      type: 'string',
      anyOf: [{ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }],
      'x-expected': 'the name of an environment variable (letters, digits and "_"), like "BOSUN_PG_URL"',
      description: 'Environment variable holding the connection URL.',
    },
    schema: {
      type: 'string',
      anyOf: [{ pattern: '^[a-z_][a-z0-9_]{0,47}$' }],
      'x-expected': 'a lower-case SQL identifier of at most 48 characters (letters, digits and "_", not starting with a digit)',
      description: 'PostgreSQL schema of the tables. Default bosun.',
    },
    poolSize: { type: 'integer', minimum: 1, maximum: 1000, description: 'Connections in the pool. Default 10.' },
    statementTimeoutMs: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, description: 'statement_timeout in ms; the client gives up 1 s after it on a database that does not answer (0: neither). Default 30000.' },
    leaseTtlMs: { type: 'integer', minimum: 300, maximum: MAX_TIMER_MS, description: 'Lease time to live in ms, renewed every third of it. Default 30000.' },
    batchWindowMs: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, description: 'How long appends are gathered into one transaction, in ms. Default 4.' },
    owner: { type: 'string', minLength: 1, maxLength: 200, description: 'This store\'s name in lease rows. Default hostname:pid:random.' },
  },
  oneOf: [{ required: ['url'] }, { required: ['urlEnv'] }],
  'x-expected': 'an object with exactly one of "url" and "urlEnv"',
  additionalProperties: false,
}

export const DEFAULTS = { schema: 'bosun', poolSize: 10, statementTimeoutMs: 30_000, leaseTtlMs: 30_000, batchWindowMs: 4 } as const

/** The options a store runs with: the URL read, every default applied. */
export interface ResolvedOptions {
  url: string
  schema: string
  poolSize: number
  statementTimeoutMs: number
  leaseTtlMs: number
  batchWindowMs: number
  owner: string | undefined
}

const WHAT = 'postgresStore()'

/**
 * Checks options given from code against {@link postgresStoreOptionsSchema} (`INVALID_ARGUMENT`,
 * in the words a config file gets), then reads `urlEnv` — what a schema cannot know: that the
 * variable is set and holds a PostgreSQL URL. Messages never show the URL (it may hold a password).
 */
export function resolveOptions(options: PostgresStoreOptions, env: NodeJS.ProcessEnv = process.env): ResolvedOptions {
  const checked = assertOptions<PostgresStoreOptions>(postgresStoreOptionsSchema, options, WHAT)
  const { url, urlEnv, schema = DEFAULTS.schema, poolSize = DEFAULTS.poolSize, statementTimeoutMs = DEFAULTS.statementTimeoutMs } = checked
  const { leaseTtlMs = DEFAULTS.leaseTtlMs, batchWindowMs = DEFAULTS.batchWindowMs, owner } = checked
  return { url: url === undefined ? urlFromEnv(urlEnv!, env) : checkedUrl(url), schema, poolSize, statementTimeoutMs, leaseTtlMs, batchWindowMs, owner }
}

const problem = (key: 'url' | 'urlEnv', message: string) => optionsError(WHAT, [{ keys: [key], message }], ErrorCodes.INVALID_ARGUMENT)

/** A URL given from code, whose start the schema checked: the rest of its shape ({@link urlShapeProblem}). */
function checkedUrl(url: string): string {
  const shape = urlShapeProblem(url)
  if (shape !== undefined) throw problem('url', `the URL ${shape} (it is not shown, as it may hold a password)`)
  return url
}

/** The URL in the variable `name` (the schema has checked that it is a variable's name), its shape checked. */
function urlFromEnv(name: string, env: NodeJS.ProcessEnv): string {
  const url = env[name]?.trim()
  if (!url) throw problem('urlEnv', `the environment variable ${name} named by "urlEnv" is not set: set it to the database URL (export ${name}=postgres://…)`)
  if (!/^postgres(ql)?:\/\//.test(url)) throw problem('urlEnv', `the URL in ${name} must start with postgres:// or postgresql:// (it is not shown, as it may hold a password)`)
  const shape = urlShapeProblem(url)
  if (shape !== undefined) throw problem('urlEnv', `the URL in ${name} ${shape} (it is not shown, as it may hold a password)`)
  return url
}
