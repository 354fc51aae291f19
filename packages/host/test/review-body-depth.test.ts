import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { listen } from '../src/index.js'
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../src/request.js'
import { makeHost, perTest } from './helpers.js'

// Security review: a body within the size limit could nest ~500,000 levels; from a few thousand the
// admission's recursive copy overflowed the stack (500 internal-error, a stack trace logged per
// request), and anything shallower was logged as it came. Bodies deeper than MAX_BODY_DEPTH are
// refused before they are parsed.

const state = perTest()

/** A message whose one text block carries `extra` levels of arrays: the body is `extra + 3` deep ({ [ { [ …). */
function messageNesting(id: string, extra: number): string {
  return `{"clientMessageId":"${id}","content":[{"type":"text","text":"hi","x":${'['.repeat(extra)}${']'.repeat(extra)}}]}`
}

async function post(port: number, path: string, body: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: response.status, body: await response.json() }
}

/** Depth as JSON.parse sees it: objects and arrays inside each other. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  return 1 + Math.max(0, ...Object.values(value).map(depthOf))
}

describe('host: request bodies nest at most MAX_BODY_DEPTH levels (review)', () => {
  it('refuses a deeper body with 400 invalid-request and admits nothing; the limit itself is admitted', async () => {
    const { host, store } = makeHost(state.dir)
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    // Closed in reverse: the server, the host, then the store (left open, its journal file stays open).
    state.closing.push(store, host, server)
    expect((await post(server.port, '/v1/sessions', '{"id":"s1"}')).status).toBe(201)
    for (const levels of [MAX_BODY_DEPTH + 1, 20_000, 400_000]) {
      const refused = await post(server.port, '/v1/sessions/s1/messages', messageNesting(`deep-${levels}`, levels - 3))
      expect(refused, `${levels} levels`).toEqual({ status: 400, body: { error: { code: 'invalid-request', message: expect.stringContaining(`deeper than ${MAX_BODY_DEPTH} levels`), details: { path: '/', limit: MAX_BODY_DEPTH } } } })
    }
    const events = (await (await fetch(`http://127.0.0.1:${server.port}/v1/sessions/s1/events`)).json()) as { events: unknown[] }
    expect(events.events).toEqual([])
    const admitted = await post(server.port, '/v1/sessions/s1/messages', messageNesting('at-limit', MAX_BODY_DEPTH - 3))
    expect(admitted.status).toBe(202)
  })

  it('brackets inside strings, escaped quotes included, do not count', async () => {
    const { host, store } = makeHost(state.dir)
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    // Closed in reverse: the server, the host, then the store (left open, its journal file stays open).
    state.closing.push(store, host, server)
    const text = JSON.stringify(`\\"${'[{'.repeat(5_000)}`)
    const answer = await post(server.port, '/v1/sessions/s2/messages', `{"clientMessageId":"m1","content":${text}}`)
    // The session does not exist: the body was parsed and checked, and the route answered.
    expect(answer.body.error.code).toBe('session-not-found')
  })

  it('nestsDeeperThan agrees with the parsed value\'s depth (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, max) => {
        const text = JSON.stringify(value)
        expect(nestsDeeperThan(text, max)).toBe(depthOf(JSON.parse(text)) > max)
      }),
      { numRuns: 500 },
    )
  })
})
