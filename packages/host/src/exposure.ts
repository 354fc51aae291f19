import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Hono } from 'hono'
import type { HostContext } from './context.js'
import { errorResponse, HostError } from './errors.js'

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1', '[::1]']
const LOGIN_MS = 12 * 60 * 60_000
const TICKET_MS = 60_000
const COOKIE = 'bosun_host'

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
  /** Host names (besides loopback) the Host/Origin fence accepts. */
  allowedHosts: readonly string[]
  /** Origins allowed to call the host from a browser (CORS). */
  corsOrigins: readonly string[]
  /** True once the host is shutting down: new requests are refused. */
  closing: () => boolean
}

function corsPreflight(origin: string): Response {
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

/**
 * Exposure: the Host/Origin fence (DNS rebinding), bearer auth (or a login cookie, or a stream
 * ticket), JSON-only writes and opt-in CORS; plus the login, logout and ticket routes browsers use.
 */
export function installExposure(app: Hono, host: Pick<HostContext, 'body'>, options: ExposureOptions): void {
  const allowed = new Set([...LOOPBACK_HOSTS, ...options.allowedHosts.map((h) => h.toLowerCase())])
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
