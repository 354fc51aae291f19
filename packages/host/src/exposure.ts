import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Hono } from 'hono'
import type { HostContext } from './context.js'
import { errorResponse, HostError } from './errors.js'

const LOGIN_MS = 12 * 60 * 60_000
const TICKET_MS = 60_000
const COOKIE = 'bosun_host'

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

/** Constant-time comparison: both sides are hashed to equal-length digests first. */
export function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected))
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
  /** Browser logins (cookie value → expiry) and EventSource tickets (ticket → expiry), in memory. */
  const logins = new Map<string, number>()
  const tickets = new Map<string, number>()
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
        throw new HostError('forbidden-origin', 'Requests from another origin are refused: call the host from its own origin (or configure cors.origins).')
      }
      if (allowedOrigin) {
        cors = { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'origin' }
        if (c.req.method === 'OPTIONS') return corsPreflight(origin)
      }
    }
    const path = new URL(c.req.url).pathname
    // Only the API needs credentials: the web UI's static files (webRoot) hold no session data,
    // and the page must load before it can ask for the token.
    const api = path === '/v1' || path.startsWith('/v1/')
    if (token !== undefined && api && path !== '/v1/login') {
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
    if (!tokenMatches(given, token)) throw new HostError('not-authorized', 'Wrong token: use the one the host was started with.')
    const id = randomBytes(32).toString('base64url')
    logins.set(id, Date.now() + LOGIN_MS)
    const secure = new URL(c.req.url).protocol === 'https:' ? '; Secure' : ''
    c.header('set-cookie', `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/v1; Max-Age=${LOGIN_MS / 1000}${secure}`)
    return c.json({ loggedIn: true, expiresAt: Date.now() + LOGIN_MS })
  })

  app.post('/v1/logout', async (c) => {
    await host.body(c, 'empty')
    const id = cookieValue(c.req.header('cookie'))
    if (id !== undefined) logins.delete(id)
    c.header('set-cookie', `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/v1; Max-Age=0`)
    return c.json({ loggedIn: false })
  })

  app.post('/v1/tickets', async (c) => {
    await host.body(c, 'empty')
    const ticket = randomBytes(24).toString('base64url')
    const expiresAt = Date.now() + TICKET_MS
    tickets.set(ticket, expiresAt)
    for (const [key, expires] of tickets) if (expires < Date.now()) tickets.delete(key)
    return c.json({ ticket, expiresAt })
  })
}
