import { describe, expect, it } from 'vitest'
import { AttemptLimiter, LoginTable, TicketTable } from '../src/credentials.js'
import { isStreamPath } from '../src/exposure.js'
import { json, makeHost, perTest, req } from './helpers.js'

const t = perTest()
const TOKEN = 'z'.repeat(40)

/** A clock the test moves. */
function clock(start = 1_000_000): { now: () => number; advance(ms: number): void } {
  let time = start
  return { now: () => time, advance: (ms) => { time += ms } }
}

describe('credential tables', () => {
  it('logins are bounded (the oldest goes first) and expired ones are pruned', () => {
    const c = clock()
    const logins = new LoginTable(1000, 2, c.now)
    logins.add('a')
    logins.add('b')
    logins.add('c')
    expect(logins.size).toBe(2)
    expect(logins.valid('a')).toBe(false)
    expect(logins.valid('c')).toBe(true)
    c.advance(1001)
    logins.add('d')
    expect(logins.size).toBe(1)
    expect(logins.valid('b')).toBe(false)
  })

  it('a ticket opens its own path once, and not after it expired', () => {
    const c = clock()
    const tickets = new TicketTable(1000, 100, c.now)
    tickets.add('t1', '/v1/sessions/a/stream')
    expect(tickets.redeem('t1', '/v1/sessions/b/stream')).toBe(false)
    // A wrong-path attempt spends it too: a leaked ticket cannot be probed.
    expect(tickets.redeem('t1', '/v1/sessions/a/stream')).toBe(false)
    tickets.add('t2', '/v1/stream')
    expect(tickets.redeem('t2', '/v1/stream')).toBe(true)
    expect(tickets.redeem('t2', '/v1/stream')).toBe(false)
    tickets.add('t3', '/v1/stream')
    c.advance(1001)
    expect(tickets.redeem('t3', '/v1/stream')).toBe(false)
  })

  it('counts attempts per client in fixed windows and says how long to wait', () => {
    const c = clock()
    const limiter = new AttemptLimiter(2, 60_000, 2, c.now)
    expect(limiter.attempt('x')).toBeUndefined()
    expect(limiter.attempt('x')).toBeUndefined()
    expect(limiter.attempt('x')).toBe(60)
    expect(limiter.attempt('y')).toBeUndefined()
    c.advance(30_000)
    expect(limiter.attempt('x')).toBe(30)
    c.advance(30_000)
    expect(limiter.attempt('x')).toBeUndefined()
    limiter.attempt('z')
    limiter.attempt('w')
    expect(limiter.size).toBeLessThanOrEqual(2)
  })

  it('stream paths are exactly the stream routes', () => {
    for (const path of ['/v1/stream', '/v1/sessions/s-1/stream', '/v1/ai-sdk/chat/chat-1/stream']) expect(isStreamPath(path), path).toBe(true)
    for (const path of ['/v1/sessions/stream', '/v1/sessions/s/messages/stream', '/v1/sessions/s/events', '/v1/stream/x', '/v1/sessions/../stream', '/v1/sessions/s/stream/']) expect(isStreamPath(path), path).toBe(false)
  })
})

describe('host: tickets and logins', () => {
  it('a ticket opens the one stream it was issued for, once', async () => {
    const { host: h } = makeHost(t.dir, undefined, { auth: { token: TOKEN } })
    t.closing.push(h)
    const bearer = { authorization: `Bearer ${TOKEN}` }
    await req(h, 'POST', '/v1/sessions', { id: 'a' }, bearer)
    await req(h, 'POST', '/v1/sessions', { id: 'stream' }, bearer)
    const issue = async (path: string): Promise<string> => (await json(req(h, 'POST', '/v1/tickets', { path }, bearer))).ticket
    // Not another session's stream, nor a route that merely ends in /stream.
    expect((await req(h, 'GET', `/v1/sessions/stream/stream?ticket=${await issue('/v1/sessions/a/stream')}`)).status).toBe(401)
    expect((await req(h, 'GET', `/v1/sessions/stream?ticket=${await issue('/v1/sessions/stream/stream')}`)).status).toBe(401)
    const ticket = await issue('/v1/sessions/a/stream')
    const first = await req(h, 'GET', `/v1/sessions/a/stream?ticket=${ticket}`)
    expect(first.status).toBe(200)
    await first.body!.cancel()
    expect((await req(h, 'GET', `/v1/sessions/a/stream?ticket=${ticket}`)).status).toBe(401)
    const bad = await req(h, 'POST', '/v1/tickets', { path: '/v1/sessions/a' }, bearer)
    expect(bad.status).toBe(400)
    expect((await json(bad)).error.details).toEqual({ path: '/path' })
    expect((await req(h, 'POST', '/v1/tickets', {}, bearer)).status).toBe(400)
  })

  it('limits login attempts per client: 429 with retry-after, the right token included', async () => {
    const { host: h } = makeHost(t.dir, undefined, { auth: { token: TOKEN } })
    t.closing.push(h)
    for (let i = 0; i < 10; i++) expect((await req(h, 'POST', '/v1/login', { token: `guess-${i}` })).status).toBe(401)
    const limited = await req(h, 'POST', '/v1/login', { token: TOKEN })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await json(limited)).error.code).toBe('too-many-requests')
    // The bearer token still works: only logins are limited.
    expect((await req(h, 'GET', '/v1/host', undefined, { authorization: `Bearer ${TOKEN}` })).status).toBe(200)
  })
})
