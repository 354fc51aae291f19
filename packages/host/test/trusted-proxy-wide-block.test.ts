// trustedProxies refuses /0 because every address trusted lets any client write X-Forwarded-For.
// A block as wide spelled another way passed: BlockList matches an IPv4 peer against its mapped
// IPv6 form, so `::ffff:0:0/96` (or `::/8`, `::/1`) trusted every IPv4 client's headers — a direct
// client could then pick its own login lock-out and stream bound, and say https.
import { describe, expect, it } from 'vitest'
import { trustedProxyProblem } from '../src/index.js'
import { TrustedProxies } from '../src/trusted-proxy.js'
import { makeHost, perTest } from './helpers.js'

const t = perTest()
const expected = 'must be the IP address of a reverse proxy in front of the host, or a CIDR block of them (e.g. 127.0.0.1, 10.0.0.0/8, fd00::/8)'
const then = "so any client could write X-Forwarded-For — name the proxy's own address or network"

describe('trustedProxies: a block holding every IPv4 or every public IPv6 address is refused as /0 is', () => {
  it('the IPv4 space spelled as IPv6 (mapped, or a short ::/n) is refused', () => {
    // What such an entry did: a client on any IPv4 address was a trusted proxy.
    expect(new TrustedProxies(['::ffff:0:0/96']).trusts('203.0.113.5')).toBe(true)
    for (const entry of ['::ffff:0:0/96', '::ffff:0.0.0.0/96', '::/8', '::/80', '::/1']) {
      expect(trustedProxyProblem(entry)).toBe(`${expected}: ${entry} trusts every IPv4 address, ${then}`)
    }
  })

  it('every public IPv6 address is refused', () => {
    for (const entry of ['2000::/3', '3fff::/3']) {
      expect(trustedProxyProblem(entry)).toBe(`${expected}: ${entry} trusts every public IPv6 address (2000::/3), ${then}`)
    }
  })

  it('createHost says where (INVALID_ARGUMENT at $.trustedProxies[i])', () => {
    let thrown: unknown
    try {
      makeHost(t.dir, undefined, { trustedProxies: ['127.0.0.1', '::ffff:0:0/96'] })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT' })
    expect((thrown as Error).message).toBe(`Invalid options for createHost():\n  - $.trustedProxies[1]: ${expected}: ::ffff:0:0/96 trusts every IPv4 address, ${then} (found "::ffff:0:0/96")`)
  })

  it('a proxy network, however large, is still taken', () => {
    for (const entry of ['127.0.0.1', '10.0.0.0/8', '0.0.0.0/1', '::ffff:10.0.0.0/104', '::ffff:0:0/97', 'fd00::/8', '2001:db8::/32', '::1', 'fe80::1%eth0/64', '::/96']) {
      expect(trustedProxyProblem(entry)).toBeUndefined()
    }
  })
})
