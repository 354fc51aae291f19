/**
 * `trustedProxies`: the reverse proxies (addresses or CIDR blocks) whose `X-Forwarded-For` and
 * `X-Forwarded-Proto` the host believes. Off by default: any client can write those headers, so
 * the host reads them only on a connection that comes from one of these addresses — as Express's
 * `trust proxy` and Fastify's `trustProxy` given a list of addresses do.
 */
import { BlockList, isIP } from 'node:net'

/** An IPv4 address reached over a dual-stack socket (`::ffff:192.0.2.1`) is the IPv4 address; a zone (`%eth0`) says nothing of who it is. */
export function plainAddress(address: string): string {
  return address.replace(/%.*$/, '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')
}

/**
 * Why `entry` cannot be a trusted proxy, in words that say what to write instead; undefined when
 * it can. `bosun serve --trusted-proxy` and `createHost({ trustedProxies })` both ask here.
 */
export function trustedProxyProblem(entry: string): string | undefined {
  const expected = 'must be the IP address of a reverse proxy in front of the host, or a CIDR block of them (e.g. 127.0.0.1, 10.0.0.0/8, fd00::/8)'
  const [address = '', prefix, extra] = entry.split('/')
  const version = isIP(address)
  if (version === 0 || extra !== undefined) {
    return /^[a-z]/i.test(address) && !address.includes(':') ? `${expected}, not a name (the host compares the address a connection comes from)` : expected
  }
  if (prefix === undefined) return undefined
  const max = version === 4 ? 32 : 128
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `${expected}: the prefix after "/" is a whole number from 1 to ${max} for an IPv${version} address`
  // Every address trusted is no setting at all: any client could then write X-Forwarded-For.
  if (Number(prefix) === 0) return `${expected}: /0 trusts every address, so any client could write X-Forwarded-For — name the proxy's own address or network`
  const every = everyAddressIn(address, Number(prefix), version)
  if (every !== undefined) return `${expected}: ${entry} trusts ${every}, so any client could write X-Forwarded-For — name the proxy's own address or network`
  return undefined
}

/**
 * What a block wider than any proxy's network holds, as /0 does in effect: all of IPv4 — also when
 * spelled as IPv6 (`::ffff:0:0/96`, `::/8`), since BlockList matches an IPv4 peer against the
 * mapped form — or all of public IPv6 (`2000::/3`, `::/1`). Undefined for a narrower block.
 */
function everyAddressIn(address: string, prefix: number, version: number): string | undefined {
  const block = new BlockList()
  block.addSubnet(address.replace(/%.*$/, ''), prefix, version === 4 ? 'ipv4' : 'ipv6')
  if (block.check('0.0.0.0', 'ipv4') && block.check('255.255.255.255', 'ipv4')) return 'every IPv4 address'
  if (block.check('2000::', 'ipv6') && block.check('3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ipv6')) return 'every public IPv6 address (2000::/3)'
  return undefined
}

/** What trusted proxies say of a request: the client they forwarded it for, and the scheme it reached the first of them by. */
export interface Forwarded {
  /** The client's address (not yet reduced to its /64): the rightmost forwarded-for hop that is not a trusted proxy. */
  client: string
  /** `X-Forwarded-Proto` of the proxy that took the client's connection, when it says `http` or `https`. */
  proto: 'http' | 'https' | undefined
}

/** A request's headers, by (lower-case) name: Hono's `c.req.header`. */
export type HeaderOf = (name: string) => string | undefined

/** The addresses and blocks of `trustedProxies` (checked by createHost's options schema and {@link trustedProxyProblem}). */
export class TrustedProxies {
  readonly #list = new BlockList()
  readonly size: number

  constructor(entries: readonly string[] = []) {
    this.size = entries.length
    for (const entry of entries) {
      const [address = '', prefix] = entry.split('/')
      // BlockList matches an IPv4 address and its mapped IPv6 form (::ffff:10.0.0.1) either way.
      const plain = address.replace(/%.*$/, '')
      const family = isIP(plain) === 4 ? 'ipv4' : 'ipv6'
      this.#list.addSubnet(plain, prefix === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefix), family)
    }
  }

  /** Whether `address` (a socket's, or a forwarded-for hop) is one of the trusted proxies. */
  trusts(address: string): boolean {
    if (this.size === 0) return false
    const plain = plainAddress(address)
    const version = isIP(plain)
    return version !== 0 && this.#list.check(plain, version === 4 ? 'ipv4' : 'ipv6')
  }

  /**
   * What the proxies say of a request that came from `peer`; undefined when `peer` is not a
   * trusted proxy (its forwarded headers are then whatever a client wrote, and ignored).
   *
   * The client is found from the right of `X-Forwarded-For`: each proxy appends the address it was
   * reached from, so the hops a trusted proxy wrote are believed, and the first one that is not a
   * trusted proxy is the client; what stands left of it is the client's own writing. A hop that is
   * not an address (`unknown`, a proxy's obfuscated name) stops the walk at the proxy that wrote it.
   * The scheme is the `X-Forwarded-Proto` entry of the proxy that took the client's connection
   * when every proxy appends one (the lists line up from the right), else the last proxy's (one
   * that overwrites the header, as nginx's `proxy_set_header` does).
   */
  forwarded(peer: string, header: HeaderOf): Forwarded | undefined {
    if (!this.trusts(peer)) return undefined
    const hops = header('x-forwarded-for')?.split(',') ?? []
    let client = plainAddress(peer)
    let depth = 0
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hopAddress(hops[i]!)
      if (hop === undefined) break
      client = hop
      depth = hops.length - i
      if (!this.trusts(hop)) break
    }
    const protos = header('x-forwarded-proto')?.split(',').map((proto) => proto.trim().toLowerCase()) ?? []
    const proto = protos[protos.length - Math.max(depth, 1)] ?? protos[protos.length - 1]
    return { client, proto: proto === 'https' || proto === 'http' ? proto : undefined }
  }
}

/** A forwarded-for hop's address: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]:4711`; undefined when it is none. */
function hopAddress(hop: string): string | undefined {
  const text = hop.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  const address = bracketed ? bracketed[1]! : /^\d+\.\d+\.\d+\.\d+:\d+$/.test(text) ? text.slice(0, text.lastIndexOf(':')) : text
  const plain = plainAddress(address)
  return isIP(plain) === 0 ? undefined : plain
}
