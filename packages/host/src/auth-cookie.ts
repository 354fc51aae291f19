/**
 * The browser login cookie: its name, how a request's is read, and the `Set-Cookie` that makes or
 * ends it — with `Secure` whenever the request did not stay on this machine, so that a browser
 * never sends it over a plain-HTTP connection that crosses a network.
 */
import { isLoopback } from './exposure.js'

export const LOGIN_COOKIE = 'bosun_host'

/** The login cookie's value in a `Cookie` header, if any. */
export function loginCookieValue(header: string | undefined): string | undefined {
  return header?.split(';').map((part) => part.trim()).find((part) => part.startsWith(`${LOGIN_COOKIE}=`))?.slice(LOGIN_COOKIE.length + 1)
}

/** What decides `Secure`: the request's URL, and the socket it came on (none for an in-process `fetch`). */
export interface CookieRequest {
  url: string
  /** `c.env` of a request served by @hono/node-server: `{ incoming: IncomingMessage }`. */
  env: unknown
}

/**
 * Whether the cookie gets `Secure`. The host has no setting that says a proxy in front of it
 * terminates TLS (it reads no `X-Forwarded-Proto`, which any client could send), so it judges by
 * what it sees:
 * - the request came over TLS (`https:` — a TLS server of the embedder's around `host.fetch`): Secure;
 * - it arrived at a non-loopback address of this machine (a bind to a LAN address or `0.0.0.0`,
 *   reached over the network): Secure — the browser then keeps the cookie only over HTTPS (a TLS
 *   proxy in front), never sending it in clear across a network. Plain HTTP across a network
 *   cannot log in (the token would cross it in clear too); use a TLS proxy, or the token itself;
 * - it arrived at a loopback address (`bosun serve`'s default bind, or a proxy on the same
 *   machine): not Secure, so that a browser on `http://127.0.0.1` can keep it — the connection
 *   never leaves the machine.
 */
export function secureCookie(request: CookieRequest): boolean {
  if (new URL(request.url).protocol === 'https:') return true
  const local = (request.env as { incoming?: { socket?: { localAddress?: string } } } | undefined)?.incoming?.socket?.localAddress
  // A dual-stack bind (`::`) reports an IPv4 client's connection as `::ffff:127.0.0.1`.
  return local !== undefined && !isLoopback(local.replace(/^::ffff:/i, ''))
}

/** The `Set-Cookie` of a login (`id` for `maxAgeSeconds`), or of a logout (`id` empty, max age 0). */
export function loginCookieHeader(id: string, maxAgeSeconds: number, request: CookieRequest): string {
  return `${LOGIN_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/v1; Max-Age=${maxAgeSeconds}${secureCookie(request) ? '; Secure' : ''}`
}
