import { invalidArgument } from '@bosun/core'
import { Ajv, type ErrorObject } from 'ajv'

const positiveInteger = { type: 'integer', minimum: 1 } as const
/** The longest delay a Node timer takes: a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * `createHost(options)`, checked by one JSON Schema (compiled once). What JSON cannot say — that
 * `store.open` and `agentFactory` are functions — is checked after it, by hand.
 */
export const hostOptionsSchema = {
  type: 'object',
  required: ['store'],
  additionalProperties: false,
  properties: {
    agentFactory: {},
    config: {},
    agent: { type: 'object' },
    store: { type: 'object' },
    auth: {
      type: 'object',
      additionalProperties: false,
      required: ['token'],
      properties: { token: { type: 'string', minLength: 16 } },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: { bodyBytes: positiveInteger, idleMs: positiveInteger, keepAliveMs: positiveInteger, streamBatch: positiveInteger, pageSize: positiveInteger, streams: positiveInteger, spawnWaitMs: { ...positiveInteger, maximum: MAX_TIMER_MS } },
    },
    allowedHosts: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 253 } },
    cors: {
      type: 'object',
      additionalProperties: false,
      required: ['origins'],
      properties: { origins: { type: 'array', items: { type: 'string', pattern: '^https?://' } } },
    },
    webRoot: { type: 'string', minLength: 1 },
    // `false` turns the cluster off on a cluster store; the fields are `ClusterOptions` (cluster/cluster.ts).
    cluster: {
      anyOf: [
        { const: false },
        {
          type: 'object',
          additionalProperties: false,
          properties: { relayWaitMs: { type: 'integer', minimum: 0 }, pollIntervalMs: positiveInteger, takeoverConcurrency: positiveInteger },
        },
      ],
    },
  },
  anyOf: [{ required: ['agentFactory'] }, { required: ['agent'] }, { required: ['config'] }],
} as const

// strictRequired off: the anyOf names options the top level defines.
const validate = new Ajv({ allErrors: false, strict: true, strictRequired: false }).compile(hostOptionsSchema)

const HINTS: Record<string, string> = {
  '/auth/token': ' (32 random characters recommended)',
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty
    return `${error.instancePath === '' ? '' : `"${error.instancePath.slice(1).replaceAll('/', '.')}" has `}unknown option "${extra}"`
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty
    return `"${[...error.instancePath.slice(1).split('/').filter(Boolean), missing].join('.')}" is required`
  }
  const path = error.instancePath.slice(1).replaceAll('/', '.')
  return `"${path}" ${error.message ?? 'is invalid'}${HINTS[error.instancePath] ?? ''}`
}

/** Throws INVALID_ARGUMENT naming the option's path (e.g. `"limits.idleMs" must be >= 1`). */
export function checkHostOptions(options: unknown): void {
  if (!validate(options)) {
    const errors = validate.errors ?? []
    // The anyOf on the three ways to build agents reports itself last; say what it means.
    let first = errors.find((e) => e.keyword !== 'required' || e.schemaPath.startsWith('#/required')) ?? errors[0]!
    // A nested "false or an object" (cluster) fails both branches: the object branch's deepest
    // complaint says what is wrong (`"cluster.relayWaitMs" must be >= 0`), not "equal to constant".
    if (first.instancePath !== '' && (first.keyword === 'const' || first.keyword === 'anyOf')) {
      const inside = errors.filter((e) => e.instancePath.startsWith(first.instancePath) && e.keyword !== 'const' && e.keyword !== 'anyOf')
      first = inside.sort((a, b) => b.instancePath.length - a.instancePath.length)[0] ?? first
    }
    const message = first.schemaPath.startsWith('#/anyOf') ? 'pass "agentFactory", "agent" or "config" to build each session\'s agent' : describe(first)
    throw invalidArgument(`createHost(): ${message}.`)
  }
  const { store, agentFactory } = options as { store: { open?: unknown }; agentFactory?: unknown }
  if (typeof store.open !== 'function') throw invalidArgument('createHost(): "store" must be a Store (an object with open, create, list and close).')
  if (agentFactory !== undefined && typeof agentFactory !== 'function') throw invalidArgument('createHost(): "agentFactory" must be a function ({ sessionId, store }) => Promise<Agent>.')
}
