/**
 * The browser login cookie: its name, how a request's is read, and the `Set-Cookie` that makes or
 * ends it — with `Secure` whenever the request did not stay on this machine (or a trusted proxy
 * says the browser reached it over HTTPS), so that a browser never sends it over a plain-HTTP
 * connection that crosses a network.
 */
import { peerAddressOf, type ForwardedHeaders } from './client-address.js'
import { isLoopback } from './exposure.js'

export const LOGIN_COOKIE = 'bosun_host'

/** The login cookie's value in a `Cookie` header, if any. */
export function loginCookieValue(header: string | undefined): string | undefined {
  return header?.split(';').map((part) => part.trim()).find((part) => part.startsWith(`${LOGIN_COOKIE}=`))?.slice(LOGIN_COOKIE.length + 1)
}

/** What decides `Secure`: the request's URL, the socket it came on (none for an in-process `fetch`), and what trusted proxies say of it. */
export interface CookieRequest {
  url: string
  /** `c.env` of a request served by @hono/node-server: `{ incoming: IncomingMessage }`. */
  env: unknown
  /** Its `X-Forwarded-Proto`, believed from a trusted proxy only (`trustedProxies`). */
  forwarded?: ForwardedHeaders
}

/**
 * Whether the cookie gets `Secure`. Any of these makes it so:
 * - the request came over TLS (`https:` — a TLS server of the embedder's around `host.fetch`);
 * - a trusted proxy (`trustedProxies`) says the client reached it over HTTPS (`X-Forwarded-Proto:
 *   https`): the browser talks https to the proxy, which forwards over plain HTTP. From any other
 *   peer the header is ignored — a client could send it, and a Secure cookie set over plain HTTP
 *   is dropped by the browser, so a spoofed one would only lock its sender out;
 * - it arrived at a non-loopback address of this machine (a bind to a LAN address or `0.0.0.0`,
 *   reached over the network): the browser then keeps the cookie only over HTTPS (a TLS
 *   proxy in front), never sending it in clear across a network. Plain HTTP across a network
 *   cannot log in (the token would cross it in clear too); use a TLS proxy, or the token itself.
 * Otherwise — it arrived at a loopback address (`bosun serve`'s default bind, or a proxy on the
 * same machine that is not trusted or says `http`) — not Secure, so that a browser on
 * `http://127.0.0.1` can keep it: the connection never leaves the machine.
 */
export function secureCookie(request: CookieRequest): boolean {
  if (new URL(request.url).protocol === 'https:') return true
  const peer = peerAddressOf(request.env)
  const { forwarded } = request
  if (peer !== undefined && forwarded !== undefined && forwarded.proxies.forwarded(peer, forwarded.header)?.proto === 'https') return true
  const local = (request.env as { incoming?: { socket?: { localAddress?: string } } } | undefined)?.incoming?.socket?.localAddress
  // A dual-stack bind (`::`) reports an IPv4 client's connection as `::ffff:127.0.0.1`.
  return local !== undefined && !isLoopback(local.replace(/^::ffff:/i, ''))
}

/** The `Set-Cookie` of a login (`id` for `maxAgeSeconds`), or of a logout (`id` empty, max age 0). */
export function loginCookieHeader(id: string, maxAgeSeconds: number, request: CookieRequest): string {
  return `${LOGIN_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/v1; Max-Age=${maxAgeSeconds}${secureCookie(request) ? '; Secure' : ''}`
}
