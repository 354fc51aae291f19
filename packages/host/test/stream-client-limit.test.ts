// One client holds at most limits.streamsPerClient SSE streams: limits.streams bounds the host,
// but one client could hold all of them and every other client was refused. Real clients on
// 127.0.0.1 and 127.0.0.2 (two addresses of the loopback network, two clients to the host);
// every wait is for a condition.
import { describe, expect, it } from 'vitest'
import type { HostLimits } from '../src/index.js'
import { clientAddressOf } from '../src/client-address.js'
import { perTest, req, SseReader, waitFor } from './helpers.js'
import { requestFrom } from './from-address.js'
import { chat, hostLog, opened, post, serveHost } from './stream-helpers.js'

const t = perTest()
const log = hostLog()

const serve = (limits: HostLimits) => serveHost(t, limits)

const refusals = () => log.lines('too-many-client-streams').length

describe('host: one client holds at most limits.streamsPerClient streams', () => {
  it('its next stream is 429 too-many-client-streams with retry-after; another client is served; a stream it closes frees its slot', async () => {
    const { host, url } = await serve({ streams: 10, streamsPerClient: 2 })
    expect((await post(`${url}/v1/sessions`, { id: 's1' })).status).toBe(201)
    const controller = new AbortController()
    await opened(await fetch(`${url}/v1/stream`, { signal: controller.signal }))
    const session = await opened(await fetch(`${url}/v1/sessions/s1/stream`))

    const refused = await fetch(`${url}/v1/sessions/s1/stream`)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(await refused.json()).toEqual({ error: { code: 'too-many-client-streams', message: 'This client has 2 streams open on this host, the most one client may hold at once: close a stream it no longer reads, or retry in 5 s.', details: { limit: 2, retryAfter: 5 } } })
    // A refused chat POST admits nothing: its session was not created.
    expect((await post(`${url}/v1/ai-sdk/chat`, chat('c2'))).status).toBe(429)
    expect((await fetch(`${url}/v1/sessions/c2`)).status).toBe(404)
    expect(host.openStreams).toBe(2)

    // Another client (another address) has streams of its own.
    const other = new AbortController()
    const theirs = [
      await opened(await requestFrom('127.0.0.2', `${url}/v1/stream`, { signal: other.signal })),
      await opened(await requestFrom('127.0.0.2', `${url}/v1/sessions/s1/stream`, { signal: other.signal })),
    ]
    expect(host.openStreams).toBe(4)
    expect((await requestFrom('127.0.0.2', `${url}/v1/stream`, { signal: other.signal })).status).toBe(429)

    // The first client lets one of its streams go: its next stream is served.
    controller.abort()
    await waitFor(() => host.openStreams === 3, 15_000, () => `a slot freed by the aborted client (open: ${host.openStreams})`)
    await opened(await fetch(`${url}/v1/stream`))
    // The operator is told once, in words that name the option.
    expect(refusals()).toBe(1)
    expect(log.lines('too-many-client-streams')[0]).toContain('limits.streamsPerClient')
    await session.cancel()
    for (const reader of theirs) await reader.cancel()
    other.abort()
  })

  it('the host-wide limit still holds across clients (503 too-many-streams), and in-process requests count only towards it', async () => {
    const { host, url } = await serve({ streams: 3, streamsPerClient: 2 })
    const inProcess = [await opened(await req(host, 'GET', '/v1/stream')), await opened(await req(host, 'GET', '/v1/stream'))]
    await opened(await fetch(`${url}/v1/stream`))
    expect(host.openStreams).toBe(3)
    // Under its own bound (one stream), the client is refused because the host is full.
    const full = await fetch(`${url}/v1/stream`)
    expect(full.status).toBe(503)
    expect(((await full.json()) as { error: { code: string } }).error.code).toBe('too-many-streams')
    for (const reader of inProcess) await reader.cancel()
    await waitFor(() => host.openStreams === 1, 15_000, () => `the in-process slots freed (open: ${host.openStreams})`)
  })

  it('defaults to 100 per client', async () => {
    const { host, url } = await serve({ streams: 1000 })
    const readers: SseReader[] = []
    for (let i = 0; i < 100; i++) readers.push(new SseReader(await fetch(`${url}/v1/stream`)))
    expect(host.openStreams).toBe(100)
    expect((await fetch(`${url}/v1/stream`)).status).toBe(429)
    for (const reader of readers) await reader.cancel()
  })
})

describe('clientAddressOf: who a stream (and a login attempt) counts against', () => {
  const of = (remoteAddress?: string) => clientAddressOf(remoteAddress === undefined ? undefined : { incoming: { socket: { remoteAddress } } })
  it('an IPv4 peer by its address (also over a dual-stack socket), an IPv6 peer by its /64, an in-process request by none', () => {
    expect(of('192.0.2.7')).toBe('192.0.2.7')
    expect(of('::ffff:192.0.2.7')).toBe('192.0.2.7')
    expect(of('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64')
    expect(of('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64')
    expect(of('2001:db8:1:3::9')).toBe('2001:db8:1:3::/64')
    expect(of('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(of('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(of(undefined)).toBeUndefined()
    expect(clientAddressOf({})).toBeUndefined()
  })
})
