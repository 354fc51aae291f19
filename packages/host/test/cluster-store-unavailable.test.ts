// A host whose PostgreSQL stops answering (down, partitioned) answered every request `500
// internal-error` and logged the driver's stack each time. It answers `503 store-unavailable`
// with `retry-after`, never the database's URL (host, port, password); its log has the store's
// message once per distinct text. Real PostgreSQL behind a proxy that stalls every connection,
// then lets new ones through again (the hosts close cleanly).
import { afterEach, describe, expect, it, vi } from 'vitest'
import { available, post, useCluster, useServers } from './cluster-helpers.js'
import { loggedLines } from './helpers.js'
import { pgProxy, type PgProxy } from './pg-proxy.js'

describe.skipIf(!available)('host on PostgreSQL — the database goes away', () => {
  // Registered first, so run last (after the servers and hosts are closed).
  const proxies: PgProxy[] = []
  afterEach(() => {
    vi.restoreAllMocks()
    for (const proxy of proxies.splice(0)) proxy.destroy()
  })
  const cluster = useCluster()
  const serve = useServers()

  it('answers 503 store-unavailable with retry-after when it does not answer, without the URL, and logs the store once per text', { timeout: 120_000 }, async () => {
    const proxy = await pgProxy(cluster.url())
    proxies.push(proxy)
    const [a] = cluster.hosts(1, { storeUrl: () => proxy.url, store: () => ({ statementTimeoutMs: 2000 }) })
    const onA = await serve(a!)
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    const lines = loggedLines()
    proxy.stall()

    const url = new URL(proxy.url)
    for (const [method, path, body] of [['GET', '/v1/sessions'], ['GET', '/v1/sessions'], ['POST', '/v1/sessions', { id: 'n' }]] as const) {
      const answer = await fetch(`${onA}${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) })
      const text = await answer.text()
      expect({ request: `${method} ${path}`, status: answer.status, code: JSON.parse(text).error.code }).toEqual({ request: `${method} ${path}`, status: 503, code: 'store-unavailable' })
      expect(answer.headers.get('retry-after')).toBe('5')
      expect(JSON.parse(text).error.message).toContain('retry it in 5 s')
      for (const secret of [url.host, url.password, url.username].filter((part) => part !== '')) expect(text).not.toContain(secret)
    }
    const said = lines.filter((line) => line.startsWith('[bosun host] store-unavailable: PostgreSQL store'))
    expect(said.length).toBeGreaterThan(0)
    expect(new Set(said).size).toBe(said.length)
    expect(lines.filter((line) => line.includes('request failed'))).toEqual([])
    if (url.password !== '') expect(lines.join('\n')).not.toContain(url.password)
    // The database back for new connections: the host closes (releasing its leases) after the test.
    proxy.release()
  })
})
