import { assertOptions } from '@bosun/core'
import type { JsonSchema, OptionsProblem } from '@bosun/core'
import { DEFAULT_SPAWN_WAIT_MS } from './child-open.js'
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_RELAY_RUN_MS, DEFAULT_RELAY_WAIT_MS, DEFAULT_TAKEOVER_CONCURRENCY } from './cluster/cluster.js'
import { DEFAULT_BODY_LIMIT, DEFAULT_IDLE_MS, DEFAULT_KEEP_ALIVE_MS, DEFAULT_OPEN_TIMEOUT_MS, DEFAULT_PAGE_SIZE, DEFAULT_STREAM_BATCH } from './limits.js'
import { DEFAULT_MAX_CLIENT_STREAMS, DEFAULT_MAX_STREAMS, DEFAULT_STREAM_STALL_MS } from './stream-limit.js'
import { trustedProxyProblem } from './trusted-proxy.js'

const positiveInteger = { type: 'integer', minimum: 1 } as const
/** The longest delay a Node timer takes: a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1
/** A wait the host hands to a timer: past {@link MAX_TIMER_MS}, `idleMs` would retire a session at once and `pollIntervalMs` poll every millisecond. */
const timerMs = { ...positiveInteger, maximum: MAX_TIMER_MS } as const

/**
 * `createHost(options)`, checked by one JSON Schema through the core's options formatter (the
 * words every options error uses). What JSON cannot say — that `store.open` and `agentFactory`
 * are functions — is checked after it.
 */
export const hostOptionsSchema: JsonSchema = {
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
      // The length in an anyOf branch, for the sentence with its advice.
      properties: { token: { type: 'string', anyOf: [{ minLength: 16 }], 'x-expected': 'a string of at least 16 characters (32 random characters recommended)' } },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      // Each default is the constant the code applies (docs/host.md is checked against them).
      properties: {
        bodyBytes: { ...positiveInteger, default: DEFAULT_BODY_LIMIT },
        idleMs: { ...timerMs, default: DEFAULT_IDLE_MS },
        keepAliveMs: { ...timerMs, default: DEFAULT_KEEP_ALIVE_MS },
        streamBatch: { ...positiveInteger, default: DEFAULT_STREAM_BATCH },
        pageSize: { ...positiveInteger, default: DEFAULT_PAGE_SIZE },
        streams: { ...positiveInteger, default: DEFAULT_MAX_STREAMS },
        streamsPerClient: { ...positiveInteger, default: DEFAULT_MAX_CLIENT_STREAMS },
        streamStallMs: { ...timerMs, default: DEFAULT_STREAM_STALL_MS },
        spawnWaitMs: { ...timerMs, default: DEFAULT_SPAWN_WAIT_MS },
        openTimeoutMs: { ...timerMs, default: DEFAULT_OPEN_TIMEOUT_MS },
      },
    },
    allowedHosts: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 253 }, default: [] },
    // Each an address or a CIDR block: what JSON Schema cannot check well is checked after (trustedProxyProblem).
    trustedProxies: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, default: [] },
    cors: {
      type: 'object',
      additionalProperties: false,
      required: ['origins'],
      properties: { origins: { type: 'array', items: { type: 'string', anyOf: [{ pattern: '^https?://' }], 'x-expected': 'an origin that starts with http:// or https://' } } },
    },
    webRoot: { type: 'string', minLength: 1 },
    // `false` turns the cluster off on a cluster store; the fields are `ClusterOptions` (cluster/cluster.ts).
    cluster: {
      type: ['object', 'boolean'],
      not: { const: true },
      'x-expected': 'false (no cluster) or an object of cluster options',
      additionalProperties: false,
      properties: {
        relayWaitMs: { ...timerMs, minimum: 0, default: DEFAULT_RELAY_WAIT_MS },
        relayRunMs: { ...timerMs, default: DEFAULT_RELAY_RUN_MS },
        pollIntervalMs: { ...timerMs, default: DEFAULT_POLL_INTERVAL_MS },
        takeoverConcurrency: { ...positiveInteger, default: DEFAULT_TAKEOVER_CONCURRENCY },
      },
    },
  },
  anyOf: [{ required: ['agentFactory'] }, { required: ['agent'] }, { required: ['config'] }],
  'x-expected': 'an object with "store" and one of "agentFactory", "agent" or "config" to build each session\'s agent',
}

/** What the schema cannot say: the store is a Store, the factory a function, each trusted proxy an address or CIDR block. */
function beyondSchemaProblems(options: { store: { open?: unknown }; agentFactory?: unknown; trustedProxies?: readonly string[] }): OptionsProblem[] {
  const problems: OptionsProblem[] = []
  options.trustedProxies?.forEach((entry, i) => {
    const message = trustedProxyProblem(entry)
    if (message !== undefined) problems.push({ keys: ['trustedProxies', i], message, found: entry })
  })
  if (typeof options.store.open !== 'function') problems.push({ keys: ['store'], message: 'must be a Store (an object with open, create, list and close)' })
  if (options.agentFactory !== undefined && typeof options.agentFactory !== 'function') {
    problems.push({ keys: ['agentFactory'], message: 'must be a function ({ sessionId, store }) => Promise<Agent>', found: options.agentFactory })
  }
  return problems
}

/** Throws INVALID_ARGUMENT listing every problem by its path (`Invalid options for createHost():\n  - $.limits.idleMs: must be an integer from 1 to 2147483647 (found 0)`). */
export function checkHostOptions(options: unknown): void {
  assertOptions(hostOptionsSchema, options, 'createHost()', { check: beyondSchemaProblems })
}
