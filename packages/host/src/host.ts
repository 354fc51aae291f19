import { createRequire } from 'node:module'
import { BosunError, createAgent, ErrorCodes, registerSecret, type CreateAgentOptions, type Store } from '@bosun/core'
import { Hono } from 'hono'
import type { HostContext } from './context.js'
import { errorResponse, HostError, hostErrorOf } from './errors.js'
import { hostsWithoutToken, installExposure } from './exposure.js'
import { DEFAULT_BODY_LIMIT, DEFAULT_IDLE_MS, DEFAULT_KEEP_ALIVE_MS, DEFAULT_PAGE_SIZE, DEFAULT_STREAM_BATCH } from './limits.js'
import { pluginNamesOf } from './open-timeout.js'
import { checkHostOptions } from './options.js'
import { HostFeed } from './feed.js'
import { CHAT_BODY_DEPTH } from './ai-sdk-chat.js'
import { MAX_BODY_DEPTH, readBody } from './request.js'
import { messageIdChecks, messageRoutes } from './routes/messages.js'
import { sessionRoutes } from './routes/sessions.js'
import { streamRoutes } from './routes/streams.js'
import { chatMessageRoutes } from './routes/ai-sdk-messages.js'
import { schemas, validateBody } from './schemas.js'
import { DEFAULT_MAX_CLIENT_STREAMS, DEFAULT_MAX_STREAMS, DEFAULT_STREAM_STALL_MS, installStreamLimit, StreamSlots } from './stream-limit.js'
import { SessionManager, type AgentFactory } from './sessions.js'
import { Cluster, type ClusterOptions } from './cluster/cluster.js'
import { clusterRoutes } from './cluster/routes.js'
import { clusterStoreOf } from './cluster/store.js'
import { letStaleSessionGo } from './session-dropped.js'
import { listSummaries, sessionSummary } from './summary.js'
import { TrustedProxies } from './trusted-proxy.js'
import { webRootRoutes } from './web-root.js'
import { logHost } from './host-log.js'

const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version

export { PROTOCOL } from './routes/sessions.js'
export { DEFAULT_BODY_LIMIT, DEFAULT_IDLE_MS, DEFAULT_KEEP_ALIVE_MS } from './limits.js'

export interface HostLimits {
  /** Largest request body in bytes. Default 1 MiB. */
  bodyBytes?: number
  /** A session with no request, no stream and no running turn for this long is closed. Default 5 min. */
  idleMs?: number
  /** Keep-alive comment interval on SSE streams. Default 15 s. */
  keepAliveMs?: number
  /** Events sent per read from the log on a stream. Default 256. */
  streamBatch?: number
  /** Largest page of `GET /sessions/:id/events`. Default 1000. */
  pageSize?: number
  /**
   * How long a request for a subagent's child its parent is still spawning (logged, not stored
   * yet) waits for the parent to make it; then `503 session-unavailable` with `retry-after`.
   * Default 30 s.
   */
  spawnWaitMs?: number
  /**
   * How long opening a session may take — its agent's build (the plugins' setups, the store's
   * open) and its recovery: a setup or hook that never settles is answered `503
   * session-unavailable` with `retry-after`, and the open is closed again if it finishes later. Default 60 s.
   */
  openTimeoutMs?: number
  /**
   * SSE streams open at once (session, host and AI SDK streams, together): one more is refused
   * `503 too-many-streams` with `retry-after` until one closes. Default 1000.
   */
  streams?: number
  /**
   * SSE streams one client — one address (an IPv6 one by its /64) — holds at once: one more is
   * refused `429 too-many-client-streams` with `retry-after` until one of its streams closes.
   * In-process requests (no socket) count only towards `streams`. Default 100.
   */
  streamsPerClient?: number
  /**
   * How long an SSE stream waits for its client to take what was written (its socket to drain):
   * a client that stops reading is then disconnected — its slot, its hold on the session and its
   * connection let go — and resumes with `Last-Event-ID` when it reconnects. Default 60 s.
   */
  streamStallMs?: number
}

export interface HostAuth {
  /** Bearer token every request must carry (`Authorization: Bearer <token>`). */
  token: string
}

export interface CreateHostOptions {
  /** Builds a session's agent; it must use the `store` and `sessionId` it is given. */
  agentFactory?: AgentFactory
  /** Or: a config (as `loadConfig()` returns it, or an object) each session's agent is built from. */
  config?: unknown
  /** Or: options for `createAgent` (model, plugins, tools, system) shared by every session. */
  agent?: Omit<CreateAgentOptions, 'store' | 'sessionId' | 'signal'>
  /** The store every session lives in. */
  store: Store
  auth?: HostAuth
  limits?: HostLimits
  /**
   * Host names (besides loopback) the Host fence accepts, e.g. `['bosun.internal']`. Without
   * `auth` the fence always holds (loopback plus these). With `auth` the token already defeats DNS
   * rebinding, so every Host is accepted unless names are given here (then: loopback plus these).
   */
  allowedHosts?: readonly string[]
  /**
   * Reverse proxies in front of the host, by address or CIDR block (`['127.0.0.1']`,
   * `['10.0.0.0/8', 'fd00::/8']`), whose `X-Forwarded-For` and `X-Forwarded-Proto` the host
   * believes on a connection from them: the client is the rightmost forwarded-for hop that is
   * not one of them (for the login limit and `limits.streamsPerClient`), and the login cookie is
   * `Secure` when they say `https`. None by default: the headers are ignored (any client can write them).
   */
  trustedProxies?: readonly string[]
  /** CORS: origins (e.g. `https://app.example.com`) allowed to call the host from a browser. None by default. */
  cors?: { origins: readonly string[] }
  /** A built single-page app (a directory holding index.html, e.g. the web UI's dist) served at `/`. */
  webRoot?: string
  /**
   * On a store with the cluster API (`@bosun/plugin-store-postgres`), this host is one of many on
   * that store (SPEC §13, docs/scale-out.md): options here, or `false` to run it alone.
   */
  cluster?: ClusterOptions | false
}

export interface Host {
  /**
   * Serves every route (a Hono app's fetch): pass it to a server, or call it in tests. A server's
   * `env` (@hono/node-server's `{ incoming }`: the client's socket) is passed on to the app.
   */
  fetch: (request: Request, env?: unknown) => Promise<Response>
  app: Hono
  sessions: SessionManager
  /** This host's part in a cluster of hosts, when its store has the cluster API. */
  cluster?: Cluster
  /** SSE streams open now (at most `limits.streams`). */
  readonly openStreams: number
  /** Stops taking requests, lets running turns finish for `graceMs` then aborts them, closes every agent. */
  close(options?: { graceMs?: number }): Promise<void>
}

function factoryFrom(options: CreateHostOptions): AgentFactory {
  if (options.agentFactory) return options.agentFactory
  if (options.agent) {
    const shared = options.agent
    return ({ sessionId, store, signal }) => createAgent({ ...shared, store, sessionId, signal })
  }
  if (options.config !== undefined) {
    const config = options.config
    return async ({ sessionId, store, signal }) => {
      const { createAgentFromConfig } = await import('@bosun/core/config')
      return createAgentFromConfig(config as Parameters<typeof createAgentFromConfig>[0], { sessionId, store, signal })
    }
  }
  throw new TypeError('createHost(): pass "agentFactory", "agent" or "config" to build each session\'s agent.')
}

/**
 * Creates the host: one Hono app serving SPEC §10's routes over many sessions of one store.
 *
 * @example
 * const host = createHost({ agent: { model: scripted() }, store: jsonlStore({ dir: '.bosun/sessions' }) })
 * serve({ fetch: host.fetch, hostname: '127.0.0.1', port: 4477 })
 */
export function createHost(options: CreateHostOptions): Host {
  checkHostOptions(options)
  // Masked from here on in every log line and error answer, as a provider's key is: `bosun serve`
  // reads it from a --token-file, where registerSecretsFromEnv never sees it.
  registerSecret(options.auth?.token)
  const { store } = options
  const limits = options.limits ?? {}
  const bodyLimit = limits.bodyBytes ?? DEFAULT_BODY_LIMIT
  const clusterStore = options.cluster === false ? undefined : clusterStoreOf(store)
  const feed = new HostFeed(async (id) => {
    const { delegation: _, ...summary } = await sessionSummary(sessions, store, id)
    return (await liveStatus([summary]))[0]!
  }, { cluster: clusterStore !== undefined })
  let cluster: Cluster | undefined
  /** On a cluster, a session another host runs shows its live status, not the stored one (lists, snapshots, children, the host stream). */
  const liveStatus = async <T extends { id: string; loaded: boolean; status: string }>(rows: T[]): Promise<T[]> => (cluster === undefined ? rows : cluster.withLiveStatus(rows))
  const factory = factoryFrom(options)
  // On a cluster store, a session opened here (by a request or a takeover) first carries out its mail.
  const opening: AgentFactory = clusterStore === undefined ? factory : async (o) => {
    const agent = await factory(o)
    cluster?.opened(o.sessionId)
    return agent
  }
  const sessions = new SessionManager(store, opening, limits.idleMs ?? DEFAULT_IDLE_MS, (id, kind) => (kind === 'added' ? feed.added(id) : feed.changed(id)), limits.spawnWaitMs, limits.openTimeoutMs, pluginNamesOf(options.agent?.plugins ?? (options.config as { plugins?: unknown } | undefined)?.plugins))
  let closing = false

  const app = new Hono()
  /** When each note was last logged. */
  const noted = new Map<string, number>()
  /**
   * An answer's server-side note, logged once per text (a client retrying a locked session, every
   * request of a store outage, says it once) — again after {@link NOTE_AGAIN_MS}, so that an
   * outage that comes back later is seen again.
   */
  const note = (error: HostError): HostError => {
    if (error.serverNote === undefined) return error
    const last = noted.get(error.serverNote)
    if (last !== undefined && Date.now() - last < NOTE_AGAIN_MS) return error
    if (noted.size >= 256) noted.clear()
    noted.set(error.serverNote, Date.now())
    logHost(`[bosun host] ${error.serverNote}`)
    return error
  }
  app.onError((error, c) => {
    if (error instanceof HostError) return errorResponse(note(error))
    const id = c.req.param('id')
    const mapped = hostErrorOf(error, id)
    // A stale writer refuses for good ("Reopen the session"): the session is let go, so that the
    // retry the answer asks for opens it again from the store — the stored log is the truth. The
    // host's own line says so (which session, what it stopped, what to do), in place of the
    // store's words alone. A cluster store has dropped it already, as it reported the lease lost,
    // and logged that: this drop finds nothing, and says nothing.
    if (BosunError.is(error, ErrorCodes.STALE_WRITER) && id !== undefined && mapped) {
      letStaleSessionGo(sessions, id, error)
      return errorResponse(mapped)
    }
    if (mapped) {
      if (mapped.code === 'internal-error') logFailure(error)
      return errorResponse(note(mapped))
    }
    logFailure(error)
    return errorResponse(new HostError('internal-error', 'The host failed to answer this request; see its log.'))
  })
  app.notFound((c) => errorResponse(new HostError('not-found', `No route ${c.req.method} ${new URL(c.req.url).pathname}: see GET /v1/host.`)))

  const context: HostContext = {
    app,
    store,
    sessions,
    feed,
    version: VERSION,
    keepAliveMs: limits.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    streamBatch: limits.streamBatch ?? DEFAULT_STREAM_BATCH,
    pageSize: limits.pageSize ?? DEFAULT_PAGE_SIZE,
    token: options.auth?.token,
    // A chat body carries back every part the host sent into the chat: its depth limit leaves room for them.
    body: async (c, schema) => validateBody(schema, await readBody(c, bodyLimit, schema === 'aiSdkChat' ? CHAT_BODY_DEPTH : MAX_BODY_DEPTH)),
    async withSession(id, fn) {
      const live = await sessions.use(id)
      const release = sessions.hold(live)
      try {
        return await fn(live)
      } finally {
        release()
      }
    },
    // On a cluster, a session another host runs shows its live status, not the stored one.
    listSessions: async () => liveStatus(await listSummaries(sessions, store, (listener) => feed.watch(listener))),
    liveStatus,
  }

  const proxies = new TrustedProxies(options.trustedProxies)
  installExposure(app, context, {
    token: context.token,
    proxies,
    allowedHosts: options.allowedHosts ?? [],
    corsOrigins: options.cors?.origins ?? [],
    closing: () => closing,
  })
  const streams = new StreamSlots(limits.streams ?? DEFAULT_MAX_STREAMS, limits.streamsPerClient ?? DEFAULT_MAX_CLIENT_STREAMS, proxies, limits.streamStallMs ?? DEFAULT_STREAM_STALL_MS)
  installStreamLimit(app, streams)
  messageIdChecks(context)
  if (clusterStore !== undefined) {
    cluster = new Cluster(clusterStore, sessions, async (request) => app.fetch(request), context.token, options.cluster || {}, feed)
    clusterRoutes(context, cluster)
  }
  sessionRoutes(context)
  messageRoutes(context)
  streamRoutes(context)
  chatMessageRoutes(context)
  if (options.webRoot !== undefined) webRootRoutes(app, options.webRoot)

  const host: Host = {
    // The env carries the client's socket: its address (the per-client stream bound, the login
    // limiter) and the address it reached (the login cookie's Secure); without it every client looks in-process.
    fetch: async (request: Request, env?: unknown) => app.fetch(request, env as never),
    app,
    sessions,
    ...(cluster === undefined ? {} : { cluster }),
    get openStreams() {
      return streams.open
    },
    async close({ graceMs = 0 } = {}) {
      // Called again after a close that failed (a store outage), it retries what failed (sessions.ts).
      if (!closing) feed.close()
      closing = true
      await cluster?.close()
      await sessions.close(graceMs, { shutdown: true })
    },
  }
  // Its parts too: a copy of the host (spread, or with its fetch wrapped) serves the same routes.
  if (context.token === undefined) for (const part of [host, app, host.fetch, host.close]) hostsWithoutToken.add(part)
  return host
}

export { schemas }

/**
 * A failed request in the host's log, the error printed whole (stack, causes) as `console.error`
 * would, with every registered secret masked: a module's error may quote a key.
 */
/** How long a note's text stays said (host.ts, note): 10 minutes. */
const NOTE_AGAIN_MS = 10 * 60_000

function logFailure(error: unknown): void {
  logHost(`[bosun host] request failed:`, error)
}
