import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Hono } from 'hono'
import { loginCookieHeader, loginCookieValue } from './auth-cookie.js'
import { clientAddressOf, forwardedHeaders, type ForwardedHeaders } from './client-address.js'
import type { HostContext } from './context.js'
import { AttemptLimiter, LoginTable, TicketTable } from './credentials.js'
import { errorResponse, HostError } from './errors.js'
import { checkSessionId } from './sessions.js'
import type { TrustedProxies } from './trusted-proxy.js'

const LOGIN_MS = 12 * 60 * 60_000
const TICKET_MS = 60_000
/** Bounds on the in-memory credential tables (oldest entries go first when full). */
const MAX_LOGINS = 10_000
const MAX_TICKETS = 10_000
/** Login attempts per client address per minute, before `429 too-many-requests`. */
const LOGIN_ATTEMPTS = 10
const LOGIN_WINDOW_MS = 60_000

/** The routes a ticket may open (an EventSource cannot send headers): exactly these, GET only. */
const STREAM_PATHS = [/^\/v1\/stream$/, /^\/v1\/sessions\/([^/]+)\/stream$/, /^\/v1\/ai-sdk\/chat\/([^/]+)\/stream$/]

/** Whether `path` is a stream route (with a valid session id where it names one). */
export function isStreamPath(path: string): boolean {
  for (const pattern of STREAM_PATHS) {
    const match = pattern.exec(path)
    if (!match) continue
    if (match[1] === undefined) return true
    try {
      checkSessionId(decodeURIComponent(match[1]))
      return true
    } catch {
      return false
    }
  }
  return false
}

/**
 * The client the login limiter counts: as the stream bound counts it (an IPv6 peer by its /64,
 * whose addresses it could otherwise take one per guess; behind a trusted proxy, the client it
 * forwarded for); in-process requests share one.
 */
function clientOf(env: unknown, forwarded: ForwardedHeaders): string {
  return clientAddressOf(env, forwarded) ?? 'in-process'
}

/**
 * The hosts createHost() made without a token, and their app, fetch and close (what a copy of the
 * host keeps). listen() asks here rather than trusting its
 * `hasToken` option alone: a token-less host bound to 0.0.0.0 serves any client on the network
 * that names loopback in its Host header (only browsers cannot).
 */
export const hostsWithoutToken = new WeakSet<object>()

const isApiPath = (path: string): boolean => path === '/v1' || path.startsWith('/v1/')

/** Loopback names and addresses (localhost, 127.0.0.0/8, ::1): the one definition for binding and the Host fence. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
}

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1).toLowerCase()
  const colon = host.lastIndexOf(':')
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase()
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}

/**
 * Constant-time comparison: both sides are hashed to equal-length digests first, so neither the
 * length of the given token nor a shared prefix changes the work. `compare` is there for the test
 * that checks what is compared.
 */
export function tokenMatches(given: string, expected: string, compare: (a: Buffer, b: Buffer) => boolean = timingSafeEqual): boolean {
  return compare(digest(given), digest(expected))
}

export interface ExposureOptions {
  token: string | undefined
  /**
   * Host names (besides loopback) the Host fence accepts. Without a token the fence always holds
   * (loopback plus these); with a token it holds only when names are given (see fenceHosts).
   */
  allowedHosts: readonly string[]
  /** Origins allowed to call the host from a browser (CORS). */
  corsOrigins: readonly string[]
  /** True once the host is shutting down: new requests are refused. */
  closing: () => boolean
  /** The proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (`trustedProxies`): the login limiter's client, the cookie's Secure. */
  proxies: TrustedProxies
}

/**
 * The Host fence defends against DNS rebinding: a page on evil.example re-pointed at this host's
 * address reaches it with `Host: evil.example`. Without a token such a request would be served,
 * so the fence admits only loopback names and the configured ones. With a token every API route
 * but `/v1/login` needs the token, a cookie or a ticket, and a rebound page has none of them (it
 * cannot read the token, and the login cookie belongs to the name it was set for), so the fence
 * is not needed: the host answers to whatever name or address it is reached by (a LAN address, a
 * proxy's name). Naming hosts with a token turns the fence back on as a second line (loopback
 * plus those names). Returns undefined when every Host is accepted.
 */
export function fenceHosts(token: string | undefined, allowedHosts: readonly string[]): Set<string> | undefined {
  if (token !== undefined && allowedHosts.length === 0) return undefined
  return new Set(allowedHosts.map((h) => hostnameOf(h.includes(':') && !h.startsWith('[') && h.indexOf(':') !== h.lastIndexOf(':') ? `[${h}]` : h)))
}

/**
 * Response headers a cross-origin script may read besides the CORS-safelisted ones: without this
 * list a browser hides them from `fetch`. `etag` is the inbox version an edit sends back as
 * `if-match`; `retry-after` says when to retry a 429 or 503; `www-authenticate` names the scheme
 * of a 401.
 */
const EXPOSED_HEADERS = 'etag, retry-after, www-authenticate'

function corsPreflight(origin: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, POST, PATCH, PUT, DELETE',
      'access-control-allow-headers': 'authorization, content-type, last-event-id, if-match',
      'access-control-max-age': '600',
      vary: 'origin',
    },
  })
}

/**
 * Exposure: the Host/Origin fence (DNS rebinding), bearer auth (or a login cookie, or a stream
 * ticket), JSON-only writes and opt-in CORS; plus the login, logout and ticket routes browsers use.
 */
export function installExposure(app: Hono, host: Pick<HostContext, 'body'>, options: ExposureOptions): void {
  const allowed = fenceHosts(options.token, options.allowedHosts)
  const corsOrigins = new Set(options.corsOrigins.map((o) => new URL(o).origin.toLowerCase()))
  const { token } = options
  const logins = new LoginTable(LOGIN_MS, MAX_LOGINS)
  const tickets = new TicketTable(TICKET_MS, MAX_TICKETS)
  const loginAttempts = new AttemptLimiter(LOGIN_ATTEMPTS, LOGIN_WINDOW_MS, MAX_LOGINS)
  const forwarded = (c: Parameters<typeof forwardedHeaders>[0]): ForwardedHeaders => forwardedHeaders(c, options.proxies)

  app.use('*', async (c, next) => {
    const hostHeader = c.req.header('host') ?? new URL(c.req.url).host
    const name = hostnameOf(hostHeader)
    if (allowed !== undefined && !isLoopback(name) && !allowed.has(name)) {
      throw new HostError('forbidden-origin', 'This host does not answer to that Host name: use its own address, or add the name to allowedHosts (bosun serve --allowed-host <name>).')
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
        throw new HostError('forbidden-origin', 'Requests from another origin are refused: call the host from its own origin, or allow that origin with cors.origins (bosun serve --cors <origin>).')
      }
      if (allowedOrigin) {
        cors = { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'origin' }
        if (c.req.method === 'OPTIONS') return corsPreflight(origin)
      }
    }
    const path = new URL(c.req.url).pathname
    // Only the API needs credentials: the web UI's static files (webRoot) hold no session data,
    // and the page must load before it can ask for the token. The router matches the path after
    // percent-decoding it (`/%761/sessions` is `/v1/sessions` to it), so the decoded path decides
    // too: judged on the raw path alone, an encoded spelling reached every route without the token.
    const routed = c.req.path
    const api = isApiPath(path) || isApiPath(routed)
    if (token !== undefined && api && routed !== '/v1/login') {
      const header = c.req.header('authorization') ?? ''
      const match = /^Bearer (.+)$/i.exec(header)
      const byBearer = match !== null && tokenMatches(match[1]!.trim(), token)
      const byCookie = !byBearer && logins.valid(loginCookieValue(c.req.header('cookie')))
      const byTicket = !byBearer && !byCookie && c.req.method === 'GET' && isStreamPath(path) && tickets.redeem(c.req.query('ticket'), path)
      if (!byBearer && !byCookie && !byTicket) {
        return errorResponse(new HostError('not-authorized', 'Missing or wrong credentials: send "Authorization: Bearer <token>", log in with POST /v1/login, or open a stream with a fresh ?ticket= issued for its path.'), { 'www-authenticate': 'Bearer', ...cors })
      }
    }
    const method = c.req.method
    if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
      if (type !== 'application/json') {
        throw new HostError('unsupported-media-type', `Send the body as "content-type: application/json" (got ${JSON.stringify(type || 'none')}).`)
      }
    }
    if (options.closing()) throw new HostError('session-locked', 'The host is shutting down: retry against the restarted host.')
    await next()
    // On every answer (errors and streams too) to an allowed cross-origin caller.
    for (const [name, value] of Object.entries(cors)) c.res.headers.set(name, value)
  })

  // Browsers: log in once with the token for an HttpOnly cookie; an EventSource (which cannot send
  // headers) opens a stream with a short-lived ticket.
  app.post('/v1/login', async (c) => {
    const { token: given } = await host.body<{ token: string }>(c, 'login')
    if (token === undefined) return c.json({ loggedIn: true, auth: 'none' })
    const wait = loginAttempts.attempt(clientOf(c.env, forwarded(c)))
    if (wait !== undefined) {
      return errorResponse(new HostError('too-many-requests', `Too many login attempts from this address: retry in ${wait} s.`, { retryAfter: wait }), { 'retry-after': String(wait) })
    }
    if (!tokenMatches(given, token)) throw new HostError('not-authorized', 'Wrong token: use the one the host was started with.')
    const id = randomBytes(32).toString('base64url')
    const expiresAt = logins.add(id)
    c.header('set-cookie', loginCookieHeader(id, LOGIN_MS / 1000, { url: c.req.url, env: c.env, forwarded: forwarded(c) }))
    return c.json({ loggedIn: true, expiresAt })
  })

  app.post('/v1/logout', async (c) => {
    await host.body(c, 'empty')
    const id = loginCookieValue(c.req.header('cookie'))
    if (id !== undefined) logins.delete(id)
    // With the login's attributes: a browser lets only a Secure Set-Cookie replace a Secure cookie.
    c.header('set-cookie', loginCookieHeader('', 0, { url: c.req.url, env: c.env, forwarded: forwarded(c) }))
    return c.json({ loggedIn: false })
  })

  app.post('/v1/tickets', async (c) => {
    const { path } = await host.body<{ path: string }>(c, 'ticket')
    if (!isStreamPath(path)) {
      throw new HostError('invalid-request', `"path" must be the stream the ticket is for (/v1/stream, /v1/sessions/:id/stream or /v1/ai-sdk/chat/:id/stream), got ${JSON.stringify(path)}.`, { path: '/path' })
    }
    const ticket = randomBytes(24).toString('base64url')
    const expiresAt = tickets.add(ticket, path)
    return c.json({ ticket, path, expiresAt })
  })
}
