// trustedProxies: which forwarded-for hop is the client, which X-Forwarded-Proto entry is its
// scheme, and what createHost says of an entry that is not an address or CIDR block.
import { describe, expect, it } from 'vitest'
import { clientAddressOf } from '../src/client-address.js'
import { createHost, trustedProxyProblem } from '../src/index.js'
import { TrustedProxies } from '../src/trusted-proxy.js'
import { makeHost, perTest } from './helpers.js'

const t = perTest()

const headers = (values: Record<string, string>) => (name: string) => values[name]

describe('TrustedProxies.forwarded', () => {
  const proxies = new TrustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8'])

  it('believes only a trusted peer', () => {
    const sent = headers({ 'x-forwarded-for': '192.0.2.1', 'x-forwarded-proto': 'https' })
    expect(proxies.forwarded('127.0.0.1', sent)).toEqual({ client: '192.0.2.1', proto: 'https' })
    expect(proxies.forwarded('::ffff:127.0.0.1', sent)).toEqual({ client: '192.0.2.1', proto: 'https' })
    expect(proxies.forwarded('127.0.0.2', sent)).toBeUndefined()
    expect(new TrustedProxies().forwarded('127.0.0.1', sent)).toBeUndefined()
  })

  it('the client is the rightmost hop that is not a trusted proxy; what the client wrote left of it is ignored', () => {
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '6.6.6.6, 192.0.2.1, 10.1.2.3' }))?.client).toBe('192.0.2.1')
    // Every hop a trusted proxy: the leftmost is as far as the chain is known.
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '10.0.0.9, 10.1.2.3' }))?.client).toBe('10.0.0.9')
    // No header: the proxy itself.
    expect(proxies.forwarded('127.0.0.1', headers({}))).toEqual({ client: '127.0.0.1', proto: undefined })
    // Ports and brackets as some proxies write them; a mapped IPv4 address is the IPv4 one.
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '192.0.2.1:4711' }))?.client).toBe('192.0.2.1')
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '[2001:db8::7]:4711, [fd00::1]' }))?.client).toBe('2001:db8::7')
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '::ffff:192.0.2.1' }))?.client).toBe('192.0.2.1')
    // A hop that is no address stops at the proxy that wrote it.
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '192.0.2.1, unknown, 10.1.2.3' }))?.client).toBe('10.1.2.3')
  })

  it('the scheme is the entry of the proxy that took the client\'s connection when each proxy appends one, else the last proxy\'s', () => {
    // The client wrote "https"; the proxy appended the scheme it saw.
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '192.0.2.1', 'x-forwarded-proto': 'https, http' }))?.proto).toBe('http')
    // A TLS proxy (10.1.2.3) in front of another that appends: the first one's scheme.
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '192.0.2.1, 10.1.2.3', 'x-forwarded-proto': 'https, http' }))?.proto).toBe('https')
    // One value for two hops (the last proxy overwrote it): that value.
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-for': '192.0.2.1, 10.1.2.3', 'x-forwarded-proto': 'HTTPS' }))?.proto).toBe('https')
    expect(proxies.forwarded('127.0.0.1', headers({ 'x-forwarded-proto': 'wss' }))?.proto).toBeUndefined()
  })

  it('clientAddressOf counts a forwarded IPv6 client by its /64, and ignores the headers without a socket (in-process)', () => {
    const forwarded = { proxies, header: headers({ 'x-forwarded-for': '2001:db8:1:2::9' }) }
    expect(clientAddressOf({ incoming: { socket: { remoteAddress: '127.0.0.1' } } }, forwarded)).toBe('2001:db8:1:2::/64')
    expect(clientAddressOf({ incoming: { socket: { remoteAddress: 'fd00::5' } } }, forwarded)).toBe('2001:db8:1:2::/64')
    expect(clientAddressOf({ incoming: { socket: { remoteAddress: '192.0.2.50' } } }, forwarded)).toBe('192.0.2.50')
    expect(clientAddressOf(undefined, forwarded)).toBeUndefined()
  })
})

describe('trustedProxies is checked', () => {
  it('an entry that is not an address or CIDR block is INVALID_ARGUMENT naming it and saying what to write', () => {
    expect(trustedProxyProblem('127.0.0.1')).toBeUndefined()
    expect(trustedProxyProblem('10.0.0.0/8')).toBeUndefined()
    expect(trustedProxyProblem('fd00::/8')).toBeUndefined()
    let thrown: unknown
    try {
      makeHost(t.dir, undefined, { trustedProxies: ['10.0.0.0/8', '10.0.0.0/33', 'localhost', '0.0.0.0/0', 'fd00::/129', '1.2.3'] })
    } catch (error) {
      thrown = error
    }
    const expected = 'must be the IP address of a reverse proxy in front of the host, or a CIDR block of them (e.g. 127.0.0.1, 10.0.0.0/8, fd00::/8)'
    expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect((thrown as Error).message).toBe([
      'Invalid options for createHost():',
      `  - $.trustedProxies[1]: ${expected}: the prefix after "/" is a whole number from 1 to 32 for an IPv4 address (found "10.0.0.0/33")`,
      `  - $.trustedProxies[2]: ${expected}, not a name (the host compares the address a connection comes from) (found "localhost")`,
      `  - $.trustedProxies[3]: ${expected}: /0 trusts every address, so any client could write X-Forwarded-For — name the proxy's own address or network (found "0.0.0.0/0")`,
      `  - $.trustedProxies[4]: ${expected}: the prefix after "/" is a whole number from 1 to 128 for an IPv6 address (found "fd00::/129")`,
      `  - $.trustedProxies[5]: ${expected} (found "1.2.3")`,
    ].join('\n'))
  })

  it('a value that is not a list of strings is refused by the schema', () => {
    expect(() => createHost({ store: { open: () => {} } as never, agentFactory: async () => ({}) as never, trustedProxies: '127.0.0.1' as never })).toThrow(/\$\.trustedProxies: must be an array/)
  })
})
