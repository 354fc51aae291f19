import { isIPv6 } from 'node:net'

/**
 * Who a client is for the host's per-client bounds — the streams it holds (`limits.streamsPerClient`)
 * and its login attempts: the peer's address, from the socket @hono/node-server hands the app as
 * `c.env.incoming` — `undefined` for a request with no socket (`host.fetch` called in-process, a
 * cluster relay). One rule for both, so that neither can be got round where the other cannot.
 *
 * Not a credential: the host has one token (or logins of that one token), so it cannot tell two
 * authorised clients apart by what they send, and a forwarded-for header is whatever the client
 * writes. An IPv6 peer is counted by its /64 — the block one subscriber is routed, which it can
 * spread connections over at will; an IPv4 address reached over a dual-stack socket
 * (`::ffff:192.0.2.1`) is the IPv4 address.
 */
export function clientAddressOf(env: unknown): string | undefined {
  const address = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress
  if (address === undefined) return undefined
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
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
