import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { createRequire } from 'node:module'
import { BosunError, createAgent, createUserMessage, forkSession, type Agent, type CreateAgentOptions, type Store, type UserMessage } from '@bosun/core'
import { Hono, type Context } from 'hono'
import { openTurn, uiMessageStream } from './ai-sdk.js'
import { errorResponse, HostError } from './errors.js'
import { findAdmission, foldInbox, messageState } from './log.js'
import { HostFeed, type SessionSummaryFrame } from './feed.js'
import { openApiDocument } from './openapi.js'
import { CLIENT_MESSAGE_ID_PATTERN, schemas, validateBody, type PostMessageBody, type SchemaName } from './schemas.js'
import { checkSessionId, SessionManager, type AgentFactory, type LiveSession } from './sessions.js'
import { sessionStream } from './stream.js'

const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version

export const PROTOCOL = 'bosun-host/1'
export const DEFAULT_BODY_LIMIT = 1024 * 1024
export const DEFAULT_IDLE_MS = 5 * 60_000
export const DEFAULT_KEEP_ALIVE_MS = 15_000

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
  agent?: Omit<CreateAgentOptions, 'store' | 'sessionId'>
  /** The store every session lives in. */
  store: Store
  auth?: HostAuth
  limits?: HostLimits
  /** Host names (besides loopback) the Host/Origin fence accepts, e.g. `['bosun.internal']`. */
  allowedHosts?: readonly string[]
  /** CORS: origins (e.g. `https://app.example.com`) allowed to call the host from a browser. None by default. */
  cors?: { origins: readonly string[] }
}

export interface Host {
  /** Serves every route (a Hono app's fetch): pass it to a server, or call it in tests. */
  fetch: (request: Request) => Promise<Response>
  app: Hono
  sessions: SessionManager
  /** Stops taking requests, lets running turns finish for `graceMs` then aborts them, closes every agent. */
  close(options?: { graceMs?: number }): Promise<void>
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1', '[::1]']

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1).toLowerCase()
  const colon = host.lastIndexOf(':')
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase()
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}

/** Constant-time comparison: both sides are hashed to equal-length digests first. */
export function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected))
}

function factoryFrom(options: CreateHostOptions): AgentFactory {
  if (options.agentFactory) return options.agentFactory
  if (options.agent) {
    const shared = options.agent
    return ({ sessionId, store }) => createAgent({ ...shared, store, sessionId })
  }
  if (options.config !== undefined) {
    const config = options.config
    return async ({ sessionId, store }) => {
      const { createAgentFromConfig } = await import('@bosun/core/config')
      return createAgentFromConfig(config as Parameters<typeof createAgentFromConfig>[0], { sessionId, store })
    }
  }
  throw new TypeError('createHost(): pass "agentFactory", "agent" or "config" to build each session\'s agent.')
}

async function readBody(c: Context, limit: number): Promise<unknown> {
  const length = c.req.header('content-length')
  if (length !== undefined && Number(length) > limit) {
    throw new HostError('payload-too-large', `The request body is larger than ${limit} bytes: send less.`, { limit })
  }
  const body = c.req.raw.body
  if (!body) return {}
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw new HostError('payload-too-large', `The request body is larger than ${limit} bytes: send less.`, { limit })
    }
    chunks.push(value)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text)
  } catch {
    throw new HostError('invalid-request', 'The request body is not valid JSON.', { path: '/' })
  }
}

function intQuery(c: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = c.req.query(name)
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new HostError('invalid-request', `Query parameter "${name}" must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}.`, { path: `?${name}` })
  }
  return value
}

function inboxOf(agent: Agent): { 'next-turn': readonly UserMessage[]; 'next-step': readonly UserMessage[] } {
  return { 'next-turn': [...agent.inbox.nextTurn], 'next-step': [...agent.inbox.nextStep] }
}

export interface AdmissionReceipt {
  accepted: true
  messageId: string
  duplicate: boolean
  lane: 'next-turn' | 'next-step'
  delivery: 'followup' | 'steer' | 'inject'
  rerouted?: true
  seq: number
  /** Index in its lane while queued; null once a turn claimed it. */
  position: number | null
  status: string
  durable: boolean
}

/**
 * Creates the host: one Hono app serving SPEC §10's routes over many sessions of one store.
 *
 * @example
 * const host = createHost({ agent: { model: scripted() }, store: jsonlStore({ dir: '.bosun/sessions' }) })
 * serve({ fetch: host.fetch, hostname: '127.0.0.1', port: 4477 })
 */
export function createHost(options: CreateHostOptions): Host {
  if (typeof options?.store?.open !== 'function') throw new TypeError('createHost(): "store" must be a Store.')
  if (options.auth !== undefined && (typeof options.auth.token !== 'string' || options.auth.token.length < 16)) {
    throw new TypeError('createHost(): "auth.token" must be a string of at least 16 characters (32 random characters recommended).')
  }
  const limits = options.limits ?? {}
  const bodyLimit = limits.bodyBytes ?? DEFAULT_BODY_LIMIT
  const keepAliveMs = limits.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS
  const streamBatch = limits.streamBatch ?? 256
  const pageSize = limits.pageSize ?? 1000
  const summaryOf = async (id: string, createdAt?: number): Promise<SessionSummaryFrame & { createdAt?: number }> => {
    const live = await sessions.peek(id)
    if (live) {
      const { agent } = live
      return { id, ...(createdAt === undefined ? {} : { createdAt }), loaded: true, status: agent.status, lastSeq: agent.session.length - 1, queue: { 'next-turn': agent.inbox.nextTurn.length, 'next-step': agent.inbox.nextStep.length } }
    }
    const stored = options.store.read ? await options.store.read(id).catch(() => undefined) : undefined
    const inbox = stored ? foldInbox(stored.events, stored.header.seedLength ?? 0) : undefined
    return {
      id, ...(createdAt === undefined ? {} : { createdAt }), loaded: false, status: 'idle',
      lastSeq: stored ? stored.events.length - 1 : -1,
      queue: inbox ? { 'next-turn': inbox['next-turn'].length, 'next-step': inbox['next-step'].length } : null,
    }
  }
  const feed = new HostFeed((id) => summaryOf(id))
  const sessions = new SessionManager(options.store, factoryFrom(options), limits.idleMs ?? DEFAULT_IDLE_MS, (id, kind) => (kind === 'added' ? feed.added(id) : feed.changed(id)))
  const listSessions = async (): Promise<unknown[]> => Promise.all((await options.store.list()).map((s) => summaryOf(s.id, s.createdAt)))
  const allowed = new Set([...LOOPBACK_HOSTS, ...(options.allowedHosts ?? []).map((h) => h.toLowerCase())])
  const token = options.auth?.token
  const corsOrigins = new Set((options.cors?.origins ?? []).map((o) => new URL(o).origin.toLowerCase()))
  /** Browser logins (cookie value → expiry) and EventSource tickets (ticket → expiry), in memory. */
  const logins = new Map<string, number>()
  const tickets = new Map<string, number>()
  const LOGIN_MS = 12 * 60 * 60_000
  const TICKET_MS = 60_000
  const COOKIE = 'bosun_host'
  const valid = (store: Map<string, number>, key: string | undefined): boolean => {
    if (key === undefined) return false
    const expires = store.get(key)
    if (expires === undefined) return false
    if (expires < Date.now()) {
      store.delete(key)
      return false
    }
    return true
  }
  const cookieValue = (header: string | undefined): string | undefined =>
    header?.split(';').map((part) => part.trim()).find((part) => part.startsWith(`${COOKIE}=`))?.slice(COOKIE.length + 1)
  let closing = false

  const app = new Hono()

  app.onError((error) => {
    if (error instanceof HostError) return errorResponse(error)
    if (error instanceof BosunError && (error.code === 'INVALID_ARGUMENT' || error.code === 'INVALID_SESSION_ID')) {
      return errorResponse(new HostError('invalid-request', error.message))
    }
    console.error('[bosun host] request failed:', error)
    return errorResponse(new HostError('internal-error', 'The host failed to answer this request; see its log.'))
  })
  app.notFound((c) => errorResponse(new HostError('not-found', `No route ${c.req.method} ${new URL(c.req.url).pathname}: see GET /v1/host.`)))

  // Exposure: the Host/Origin fence (DNS rebinding), bearer auth, JSON-only writes.
  app.use('*', async (c, next) => {
    const hostHeader = c.req.header('host') ?? new URL(c.req.url).host
    if (!allowed.has(hostnameOf(hostHeader))) {
      throw new HostError('forbidden-origin', 'This host does not answer to that Host name: use its own address, or add the name to allowedHosts.')
    }
    const origin = c.req.header('origin')
    let cors: Record<string, string> = {}
    if (origin !== undefined) {
      let originHost: string | undefined
      try {
        originHost = new URL(origin).host.toLowerCase()
      } catch {
        originHost = undefined
      }
      const allowedOrigin = corsOrigins.has(origin.toLowerCase())
      if (originHost !== hostHeader.toLowerCase() && !allowedOrigin) {
        throw new HostError('forbidden-origin', 'Requests from another origin are refused: call the host from its own origin (or configure cors.origins).')
      }
      if (allowedOrigin) {
        cors = { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'origin' }
        if (c.req.method === 'OPTIONS') {
          return new Response(null, {
            status: 204,
            headers: {
              'access-control-allow-origin': origin,
              'access-control-allow-credentials': 'true',
              'access-control-allow-methods': 'GET, POST, PATCH, PUT, DELETE',
              'access-control-allow-headers': 'authorization, content-type, last-event-id',
              'access-control-max-age': '600',
              vary: 'origin',
            },
          })
        }
      }
    }
    const path = new URL(c.req.url).pathname
    if (token !== undefined && path !== '/v1/login') {
      const header = c.req.header('authorization') ?? ''
      const match = /^Bearer (.+)$/i.exec(header)
      const byBearer = match !== null && tokenMatches(match[1]!.trim(), token)
      const byCookie = !byBearer && valid(logins, cookieValue(c.req.header('cookie')))
      const byTicket = !byBearer && !byCookie && c.req.method === 'GET' && path.endsWith('/stream') && valid(tickets, c.req.query('ticket'))
      if (!byBearer && !byCookie && !byTicket) {
        return errorResponse(new HostError('not-authorized', 'Missing or wrong credentials: send "Authorization: Bearer <token>", log in with POST /v1/login, or open a stream with a fresh ?ticket=.'), { 'www-authenticate': 'Bearer', ...cors })
      }
    }
    const method = c.req.method
    if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
      if (type !== 'application/json') {
        throw new HostError('unsupported-media-type', `Send the body as "content-type: application/json" (got ${JSON.stringify(type || 'none')}).`)
      }
    }
    if (closing) throw new HostError('session-locked', 'The host is shutting down: retry against the restarted host.')
    await next()
    // On every answer (errors and streams too) to an allowed cross-origin caller.
    for (const [name, value] of Object.entries(cors)) c.res.headers.set(name, value)
  })

  const body = async <T>(c: Context, schema: SchemaName): Promise<T> => validateBody<T>(schema, await readBody(c, bodyLimit))

  /** Runs `fn` with the session live and held (not retired meanwhile). */
  const withSession = async <T>(id: string, fn: (live: LiveSession) => Promise<T> | T): Promise<T> => {
    const live = await sessions.use(id)
    const release = sessions.hold(live)
    try {
      return await fn(live)
    } finally {
      release()
    }
  }

  /** Admits a message (idempotent by clientMessageId) and answers its receipt. */
  const admit = async (live: LiveSession, input: PostMessageBody, waitDurable: boolean): Promise<AdmissionReceipt> => {
      const { agent } = live
      const messageId = input.clientMessageId
      const delivery = input.delivery ?? 'followup'
      let duplicate = live.admitted.has(messageId)
      if (!duplicate) {
        const message = createUserMessage(input.content as never, { id: messageId, source: { kind: 'user', delivery } })
        try {
          if (delivery === 'followup') agent.followup(message)
          else if (delivery === 'steer') agent.steer(message)
          else agent.inject(message)
        } catch (error) {
          if (!(error instanceof BosunError && error.code === 'DUPLICATE_MESSAGE_ID')) throw error
          duplicate = true
        }
      }
      const seq = live.admitted.get(messageId)
      const admission = seq === undefined ? undefined : findAdmission(agent.session.events.slice(seq, seq + 1), messageId)
      if (seq === undefined || !admission) {
        // Admitted by a path this host does not index (e.g. a seed): report it as a duplicate it cannot place.
        throw new HostError('invalid-request', `Message id "${messageId}" is already used in this session: choose another clientMessageId.`, { path: '/clientMessageId' })
      }
      const admittedAs = (admission.message.source as { delivery?: string }).delivery
      const originalDelivery = (admittedAs === 'followup' || admittedAs === 'steer' || admittedAs === 'inject') ? admittedAs : (admission.lane === 'next-turn' ? 'followup' : 'steer')
      if (waitDurable) {
        await agent.session.flush()
        live.durableSeq = Math.max(live.durableSeq, seq)
      }
      const found = agent.inbox.find(messageId)
      const result: AdmissionReceipt = {
        accepted: true,
        messageId,
        duplicate,
        lane: admission.lane,
        delivery: originalDelivery,
        ...(originalDelivery !== 'followup' && admission.lane === 'next-turn' ? { rerouted: true as const } : {}),
        seq,
        position: found ? found.index : null,
        status: agent.status,
        durable: seq <= live.durableSeq,
      }
      return result
  }

  app.get('/v1/host', (c) => c.json({
    protocol: PROTOCOL,
    version: VERSION,
    capabilities: ['openapi', 'sessions', 'events', 'stream', 'messages', 'message-status', 'inbox-edit', 'inbox-remove', 'inbox-order', 'cancel', 'wake', 'fork', 'host-stream', 'login', 'tickets', 'ai-sdk'],
    auth: token === undefined ? 'none' : 'bearer',
  }))

  // Browsers: log in once with the token for an HttpOnly cookie; an EventSource (which cannot send
  // headers) opens a stream with a short-lived ticket.
  app.post('/v1/login', async (c) => {
    const { token: given } = await body<{ token: string }>(c, 'login')
    if (token === undefined) return c.json({ loggedIn: true, auth: 'none' })
    if (!tokenMatches(given, token)) throw new HostError('not-authorized', 'Wrong token: use the one the host was started with.')
    const id = randomBytes(32).toString('base64url')
    logins.set(id, Date.now() + LOGIN_MS)
    const secure = new URL(c.req.url).protocol === 'https:' ? '; Secure' : ''
    c.header('set-cookie', `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/v1; Max-Age=${LOGIN_MS / 1000}${secure}`)
    return c.json({ loggedIn: true, expiresAt: Date.now() + LOGIN_MS })
  })

  app.post('/v1/logout', async (c) => {
    await body(c, 'empty')
    const id = cookieValue(c.req.header('cookie'))
    if (id !== undefined) logins.delete(id)
    c.header('set-cookie', `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/v1; Max-Age=0`)
    return c.json({ loggedIn: false })
  })

  app.post('/v1/tickets', async (c) => {
    await body(c, 'empty')
    const ticket = randomBytes(24).toString('base64url')
    const expiresAt = Date.now() + TICKET_MS
    tickets.set(ticket, expiresAt)
    for (const [key, expires] of tickets) if (expires < Date.now()) tickets.delete(key)
    return c.json({ ticket, expiresAt })
  })

  const openApi = openApiDocument(VERSION)
  app.get('/v1/openapi.json', (c) => c.json(openApi))

  app.get('/v1/sessions', async (c) => c.json({ sessions: await listSessions() }))

  app.get('/v1/stream', () => new Response(feed.stream(async () => ({ sessions: await listSessions() }), keepAliveMs), {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
  }))

  app.post('/v1/sessions', async (c) => {
    const { id = crypto.randomUUID() } = await body<{ id?: string }>(c, 'createSession')
    checkSessionId(id)
    const live = await sessions.use(id, { create: true })
    return c.json({ id, status: live.agent.status, lastSeq: live.agent.session.length - 1 }, 201)
  })

  app.get('/v1/sessions/:id', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const read = await sessions.read(id)
    if (!read) throw new HostError('session-not-found', `No session "${id}" in this host's store.`, { id })
    if (read.live) {
      const { agent } = read.live
      return c.json({ id, loaded: true, status: agent.status, turn: agent.turn, lastSeq: agent.session.length - 1, inbox: inboxOf(agent) })
    }
    return c.json({ id, loaded: false, status: 'idle', lastSeq: read.events.length - 1, inbox: foldInbox(read.events, read.header.seedLength ?? 0) })
  })

  app.get('/v1/sessions/:id/events', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const after = intQuery(c, 'after', -1, -1, Number.MAX_SAFE_INTEGER)
    const limit = intQuery(c, 'limit', 100, 1, pageSize)
    const read = await sessions.read(id)
    if (!read) throw new HostError('session-not-found', `No session "${id}" in this host's store.`, { id })
    const events = read.events.slice(after + 1, after + 1 + limit)
    const lastSeq = read.events.length - 1
    const next = events.length === 0 ? after : events[events.length - 1]!.seq
    return c.json({ events, lastSeq, next: next < lastSeq ? next : null })
  })

  app.post('/v1/sessions/:id/messages', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const wait = c.req.query('wait')
    if (wait !== undefined && wait !== 'durable') throw new HostError('invalid-request', `"wait" may only be "durable", got ${JSON.stringify(wait)}.`, { path: '?wait' })
    const input = await body<PostMessageBody>(c, 'postMessage')
    const receipt = await withSession(id, (live) => admit(live, input, wait === 'durable'))
    return c.json(receipt, 202)
  })

  app.get('/v1/sessions/:id/messages/:messageId', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const messageId = c.req.param('messageId')
    const read = await sessions.read(id)
    if (!read) throw new HostError('session-not-found', `No session "${id}" in this host's store.`, { id })
    const state = messageState(read.events, messageId, read.header.seedLength ?? 0)
    if (!state) throw new HostError('message-not-found', `Session "${id}" has no message "${messageId}".`, { id, messageId })
    return c.json(state)
  })

  app.delete('/v1/sessions/:id/inbox/:messageId', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const messageId = c.req.param('messageId')
    return withSession(id, (live) => {
      try {
        live.agent.inbox.remove(messageId)
      } catch (error) {
        if (error instanceof BosunError && error.code === 'MESSAGE_NOT_PENDING') throw notQueued(id, messageId)
        throw error
      }
      return c.json({ removed: messageId, inbox: inboxOf(live.agent) })
    })
  })

  const notQueued = (id: string, messageId: string): HostError =>
    new HostError('queue-item-not-found', `Message "${messageId}" is not queued (claimed by a turn, removed, or never admitted): see GET /v1/sessions/${id}/messages/${messageId}.`, { id, messageId })

  app.patch('/v1/sessions/:id/inbox/:messageId', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const messageId = c.req.param('messageId')
    const { content } = await body<{ content: PostMessageBody['content'] }>(c, 'editMessage')
    return withSession(id, (live) => {
      const found = live.agent.inbox.find(messageId)
      if (!found) throw notQueued(id, messageId)
      try {
        // The edit keeps the id (the sender's receipt) and the source (how it was delivered).
        live.agent.inbox.replace(messageId, createUserMessage(content as never, { id: messageId, source: found.message.source }))
      } catch (error) {
        if (error instanceof BosunError && error.code === 'MESSAGE_NOT_PENDING') throw notQueued(id, messageId)
        throw error
      }
      return c.json({ edited: messageId, inbox: inboxOf(live.agent) })
    })
  })

  app.put('/v1/sessions/:id/inbox/order', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const { order } = await body<{ order: string[] }>(c, 'order')
    return withSession(id, (live) => {
      const queue = live.agent.inbox.nextTurn
      const byId = new Map(queue.map((m) => [m.id, m]))
      const missing = order.find((m) => !byId.has(m))
      if (missing !== undefined) throw notQueued(id, missing)
      if (order.length !== queue.length) {
        throw new HostError('invalid-request', `"order" must list every queued follow-up exactly once (${queue.length} queued, ${order.length} given): read GET /v1/sessions/${id} and retry.`, { path: '/order', queued: queue.map((m) => m.id) })
      }
      if (order.some((m, i) => queue[i]!.id !== m)) live.agent.inbox.splice('next-turn', 0, queue.length, order.map((m) => byId.get(m)!))
      return c.json({ inbox: inboxOf(live.agent) })
    })
  })

  app.post('/v1/sessions/:id/fork', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const input = await body<{ id?: string; afterTurn?: number }>(c, 'fork')
    const childId = input.id ?? crypto.randomUUID()
    checkSessionId(childId)
    if (!(await sessions.exists(id))) throw new HostError('session-not-found', `No session "${id}" in this host's store.`, { id })
    if (await sessions.exists(childId)) throw new HostError('session-exists', `Session "${childId}" already exists: choose another id.`, { id: childId })
    let forked
    try {
      forked = await forkSession(options.store, id, { id: childId, ...(input.afterTurn === undefined ? {} : { afterTurn: input.afterTurn }) })
    } catch (error) {
      if (error instanceof BosunError && error.code !== 'STORE') throw new HostError('invalid-request', error.message, { path: '/afterTurn' })
      throw error
    }
    await forked.writer.close()
    feed.added(childId)
    return c.json({ id: childId, parent: id, seedLength: forked.header.seedLength ?? 0 }, 201)
  })

  app.post('/v1/sessions/:id/cancel', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const { keepInbox = false } = await body<{ keepInbox?: boolean }>(c, 'cancel')
    return withSession(id, (live) => {
      live.agent.cancel({ keepInbox })
      return c.json({ canceled: true, keepInbox, inbox: inboxOf(live.agent) })
    })
  })

  app.post('/v1/sessions/:id/wake', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    await body(c, 'empty')
    return withSession(id, (live) => {
      live.agent.wake()
      return c.json({ status: live.agent.status, inbox: inboxOf(live.agent) })
    })
  })

  const uiHeaders = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    'x-vercel-ai-ui-message-stream': 'v1',
  }

  // AI SDK `useChat`: the chat id is the session id; the last user message is admitted (a
  // follow-up, or what `bosun.delivery` says) with its id as the clientMessageId, and the turn
  // that claims it streams as a UI message stream (v1).
  app.post('/v1/ai-sdk/chat', async (c) => {
    const input = await body<{ id: string; messages: { id: string; role: string; parts: { type: string; text?: string }[] }[]; bosun?: { delivery?: 'followup' | 'steer' | 'inject' } }>(c, 'aiSdkChat')
    checkSessionId(input.id)
    const last = input.messages[input.messages.length - 1]!
    if (last.role !== 'user') throw new HostError('invalid-request', 'The last message must be the user\'s: send the new user message last.', { path: `/messages/${input.messages.length - 1}/role` })
    if (!new RegExp(CLIENT_MESSAGE_ID_PATTERN).test(last.id)) throw new HostError('invalid-request', `The message id ${JSON.stringify(last.id)} must be 1-128 letters, digits, ".", "_", ":" or "-".`, { path: `/messages/${input.messages.length - 1}/id` })
    const text = last.parts.filter((p) => p.type === 'text' && typeof p.text === 'string').map((p) => p.text).join('')
    if (text === '') throw new HostError('invalid-request', 'The last user message has no text part.', { path: `/messages/${input.messages.length - 1}/parts` })
    const live = await sessions.use(input.id, { create: !(await sessions.exists(input.id)) })
    const release = sessions.hold(live)
    let receipt: AdmissionReceipt
    try {
      receipt = await admit(live, { clientMessageId: last.id, content: text, delivery: input.bosun?.delivery ?? 'followup' }, false)
    } catch (error) {
      release()
      throw error
    }
    return new Response(uiMessageStream(live, { messageId: receipt.messageId, after: receipt.seq - 1, keepAliveMs, onEnd: release }), { status: 200, headers: uiHeaders })
  })

  app.get('/v1/ai-sdk/chat/:id/stream', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    if (!(await sessions.exists(id))) return new Response(null, { status: 204 })
    const live = await sessions.use(id)
    const turn = openTurn(live.agent.session.events)
    if (!turn) return new Response(null, { status: 204 })
    const release = sessions.hold(live)
    return new Response(uiMessageStream(live, { turn: turn.turn, after: turn.seq - 1, keepAliveMs, onEnd: release }), { status: 200, headers: uiHeaders })
  })

  app.get('/v1/sessions/:id/stream', async (c) => {
    const id = c.req.param('id')
    checkSessionId(id)
    const live = await sessions.use(id)
    const lastEventId = c.req.header('last-event-id')
    let after: number
    if (c.req.query('from') === 'tail') after = live.agent.session.length - 1
    else if (lastEventId !== undefined && lastEventId !== '') {
      after = Number(lastEventId)
      if (!Number.isSafeInteger(after) || after < -1) throw new HostError('invalid-request', `Last-Event-ID must be a seq (an integer ≥ -1), got ${JSON.stringify(lastEventId)}.`, { path: 'Last-Event-ID' })
    } else after = intQuery(c, 'after', -1, -1, Number.MAX_SAFE_INTEGER)
    const chunksParam = c.req.query('chunks')
    if (chunksParam !== undefined && chunksParam !== 'true' && chunksParam !== 'false') {
      throw new HostError('invalid-request', `"chunks" must be "true" or "false", got ${JSON.stringify(chunksParam)}.`, { path: '?chunks' })
    }
    const release = sessions.hold(live)
    const stream = sessionStream(live, { after, keepAliveMs, batch: streamBatch, chunks: chunksParam !== 'false', onEnd: release })
    return new Response(stream, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      },
    })
  })

  return {
    fetch: async (request: Request) => app.fetch(request),
    app,
    sessions,
    async close({ graceMs = 0 } = {}) {
      closing = true
      feed.close()
      await sessions.close(graceMs)
    },
  }
}

export { schemas }
