import { isIPv6 } from 'node:net'
import { plainAddress, type HeaderOf, type TrustedProxies } from './trusted-proxy.js'

/** A request's forwarded headers and the proxies whose headers are believed (`trustedProxies`, none by default). */
export interface ForwardedHeaders {
  proxies: TrustedProxies
  header: HeaderOf
}

/** A Hono request's forwarded headers (`c.req.header`), judged by `proxies`. */
export function forwardedHeaders(c: { req: { header(name: string): string | undefined } }, proxies: TrustedProxies): ForwardedHeaders {
  return { proxies, header: (name) => c.req.header(name) }
}

/** The address the connection came from: the socket @hono/node-server hands the app as `c.env.incoming`; none without a socket. */
export function peerAddressOf(env: unknown): string | undefined {
  return (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress
}

/**
 * Who a client is for the host's per-client bounds — the streams it holds (`limits.streamsPerClient`)
 * and its login attempts: the peer's address, from the socket @hono/node-server hands the app as
 * `c.env.incoming` — `undefined` for a request with no socket (`host.fetch` called in-process, a
 * cluster relay). One rule for both, so that neither can be got round where the other cannot.
 *
 * Not a credential: the host has one token (or logins of that one token), so it cannot tell two
 * authorised clients apart by what they send. A forwarded-for header is whatever the client
 * writes, so it counts only on a connection from a trusted proxy (`forwarded`; none by default),
 * and then only as far as trusted proxies wrote it (TrustedProxies.forwarded). An IPv6 client is
 * counted by its /64 — the block one subscriber is routed, which it can spread connections over
 * at will; an IPv4 address reached over a dual-stack socket (`::ffff:192.0.2.1`) is the IPv4 address.
 */
export function clientAddressOf(env: unknown, forwarded?: ForwardedHeaders): string | undefined {
  const peer = peerAddressOf(env)
  if (peer === undefined) return undefined
  const address = plainAddress(forwarded?.proxies.forwarded(peer, forwarded.header)?.client ?? peer)
  return isIPv6(address) ? `${ipv6Groups(address).slice(0, 4).join(':')}::/64` : address
}

/** The eight 16-bit groups of an IPv6 address, `::` expanded and a zone (`%eth0`) dropped. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.replace(/%.*$/, '').toLowerCase().split('::')
  const split = (part: string): string[] => (part === '' ? [] : part.split(':').map((group) => group.replace(/^0+(?=.)/, '')))
  if (tail === undefined) return split(head)
  const left = split(head)
  const right = split(tail)
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
}
