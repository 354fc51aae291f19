// Login attempts are limited per client (10 a minute). An IPv6 client is its /64 — the block one
// subscriber is routed, whose 2^64 addresses it can take at will (as limits.streamsPerClient
// counts it): counted per address, each wrong guess could come from a fresh one and the limit
// would never be reached. An IPv4 client reached over a dual-stack socket is its IPv4 address.
// The server's env is handed to host.fetch as @hono/node-server hands it (the client's socket).
import { expect, it } from 'vitest'
import { json, makeHost, perTest } from './helpers.js'

const t = perTest()
const TOKEN = 'a-token-of-32-random-characters!!'

it('wrong logins from addresses of one IPv6 /64 count together; another /64 and the IPv4 client are apart', async () => {
  const { host } = makeHost(t.dir, undefined, { auth: { token: TOKEN } })
  t.closing.push(host)
  const login = (remoteAddress: string, token: string) =>
    host.fetch(new Request('http://127.0.0.1/v1/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) }), { incoming: { socket: { remoteAddress } } })

  // Each guess from another address of 2001:db8:1:2::/64.
  for (let i = 0; i < 10; i++) expect((await login(`2001:db8:1:2::${(i + 1).toString(16)}`, `guess-${i}`)).status).toBe(401)
  const limited = await login('2001:db8:1:2:ffff:ffff:ffff:ffff', TOKEN)
  expect(limited.status).toBe(429)
  expect((await json(limited)).error.code).toBe('too-many-requests')

  expect((await login('2001:db8:1:3::1', TOKEN)).status).toBe(200)

  // 192.0.2.7 and ::ffff:192.0.2.7 are one client: its tenth guess under either spelling is its last.
  for (let i = 0; i < 10; i++) expect((await login(i % 2 === 0 ? '192.0.2.7' : '::ffff:192.0.2.7', `guess-${i}`)).status).toBe(401)
  expect((await login('192.0.2.7', TOKEN)).status).toBe(429)
})
