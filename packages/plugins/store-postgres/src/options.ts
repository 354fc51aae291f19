import { invalidArgument } from '@bosun/core'
import type { JsonSchema } from '@bosun/core'

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
  /** `statement_timeout` of every connection, in ms; 0 for none. Default 30 000. */
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

/** The JSON Schema of {@link PostgresStoreOptions}, validated before a config file's store is created. */
export const postgresStoreOptionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', pattern: '^postgres(ql)?://', description: 'Connection URL without a password (use urlEnv for one with credentials).' },
    urlEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Environment variable holding the connection URL.' },
    schema: { type: 'string', pattern: '^[a-z_][a-z0-9_]{0,47}$', description: 'PostgreSQL schema of the tables. Default bosun.' },
    poolSize: { type: 'integer', minimum: 1, maximum: 1000, description: 'Connections in the pool. Default 10.' },
    statementTimeoutMs: { type: 'integer', minimum: 0, description: 'statement_timeout in ms (0: none). Default 30000.' },
    leaseTtlMs: { type: 'integer', minimum: 300, description: 'Lease time to live in ms, renewed every third of it. Default 30000.' },
    batchWindowMs: { type: 'integer', minimum: 0, description: 'How long appends are gathered into one transaction, in ms. Default 4.' },
    owner: { type: 'string', minLength: 1, maxLength: 200, description: 'This store\'s name in lease rows. Default hostname:pid:random.' },
  },
  oneOf: [{ required: ['url'], not: { required: ['urlEnv'] } }, { required: ['urlEnv'], not: { required: ['url'] } }],
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

/**
 * Checks options given from code (a config file's options are checked by the schema first) and
 * reads `urlEnv`. Messages never show the URL (it may hold a password).
 */
export function resolveOptions(options: PostgresStoreOptions, env: NodeJS.ProcessEnv = process.env): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw invalidArgument('postgresStore(options): options must be an object with "url" or "urlEnv".')
  const { url, urlEnv, schema = DEFAULTS.schema, poolSize = DEFAULTS.poolSize, statementTimeoutMs = DEFAULTS.statementTimeoutMs } = options
  const { leaseTtlMs = DEFAULTS.leaseTtlMs, batchWindowMs = DEFAULTS.batchWindowMs, owner } = options
  if ((url === undefined) === (urlEnv === undefined)) throw invalidArgument('postgresStore(): give exactly one of "url" and "urlEnv".')
  let resolved = url
  if (urlEnv !== undefined) {
    if (typeof urlEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(urlEnv)) {
      throw invalidArgument('postgresStore(): "urlEnv" must name an environment variable (letters, digits and "_"); the value given is not shown.')
    }
    resolved = env[urlEnv]?.trim()
    if (!resolved) throw invalidArgument(`postgresStore(): the environment variable ${urlEnv} named by "urlEnv" is not set. Set it to the database URL (export ${urlEnv}=postgres://…).`)
  }
  if (typeof resolved !== 'string' || !/^postgres(ql)?:\/\//.test(resolved)) {
    throw invalidArgument(`postgresStore(): the ${urlEnv === undefined ? '"url"' : `URL in ${urlEnv}`} must start with postgres:// or postgresql:// (it is not shown, as it may hold a password).`)
  }
  if (typeof schema !== 'string' || !/^[a-z_][a-z0-9_]{0,47}$/.test(schema)) {
    throw invalidArgument(`postgresStore(): "schema" must be a lower-case SQL identifier of at most 48 characters, got ${JSON.stringify(schema)}.`)
  }
  const integer = (name: string, value: number, min: number) => {
    if (!Number.isSafeInteger(value) || value < min) throw invalidArgument(`postgresStore(): "${name}" must be an integer of at least ${min}, got ${String(value)}.`)
  }
  integer('poolSize', poolSize, 1)
  integer('statementTimeoutMs', statementTimeoutMs, 0)
  integer('leaseTtlMs', leaseTtlMs, 300)
  integer('batchWindowMs', batchWindowMs, 0)
  if (owner !== undefined && (typeof owner !== 'string' || owner.length === 0 || owner.length > 200)) {
    throw invalidArgument('postgresStore(): "owner" must be a string of 1 to 200 characters.')
  }
  return { url: resolved, schema, poolSize, statementTimeoutMs, leaseTtlMs, batchWindowMs, owner }
}
