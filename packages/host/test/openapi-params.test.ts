// U2 (walking job 1 over HTTP from docs/host.md and its OpenAPI document): the document typed every
// query parameter as any string, left out the headers the routes read (Last-Event-ID on the session
// stream, If-Match on the queue operations) and ?ticket, and did not list the AI SDK resume route's
// 204 — so a client generated from it treated that answer as an error. Each parameter it lists now
// carries the values the host takes, checked here against the host's own answers.
import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req } from './helpers.js'

const t = perTest()

interface Parameter { name: string; in: string; schema: { type?: string; enum?: string[]; minimum?: number } }
type Operation = { parameters?: Parameter[]; responses: Record<string, unknown> }

describe('the OpenAPI document\'s parameters and answers', () => {
  it('lists the stream cursor header, the queue operations\' If-Match, tickets and the resume route\'s 204', async () => {
    const { host } = makeHost(t.dir)
    const doc = await json(req(host, 'GET', '/v1/openapi.json'))
    const op = (path: string, method: string): Operation => doc.paths[path][method]
    const param = (path: string, method: string, name: string): Parameter | undefined => op(path, method).parameters?.find((p) => p.name === name)

    expect(param('/v1/sessions/{id}/stream', 'get', 'Last-Event-ID')).toMatchObject({ in: 'header', schema: { type: 'integer', minimum: -1 } })
    expect(param('/v1/sessions/{id}/events', 'get', 'after')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: -1 } })
    for (const path of ['/v1/stream', '/v1/sessions/{id}/stream', '/v1/ai-sdk/chat/{id}/stream']) expect(param(path, 'get', 'ticket')).toMatchObject({ in: 'query' })
    for (const [path, method] of [['/v1/sessions/{id}/inbox/{messageId}', 'patch'], ['/v1/sessions/{id}/inbox/{messageId}', 'delete'], ['/v1/sessions/{id}/inbox/{messageId}/promote', 'post'], ['/v1/sessions/{id}/inbox/order', 'put']] as const) {
      expect(param(path, method, 'If-Match')).toMatchObject({ in: 'header' })
    }
    expect(Object.keys(op('/v1/ai-sdk/chat/{id}/stream', 'get').responses).sort()).toEqual(['200', '204', '503', 'default'])
    // The resume route's 204, as the document says.
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await req(host, 'GET', '/v1/ai-sdk/chat/s/stream')).status).toBe(204)
  })

  it('each enumerated query value the document lists is taken, and a value outside it is refused at its parameter', async () => {
    const { host } = makeHost(t.dir)
    const doc = await json(req(host, 'GET', '/v1/openapi.json'))
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    const url = { '/v1/sessions/{id}/stream': '/v1/sessions/s/stream', '/v1/sessions/{id}/messages': '/v1/sessions/s/messages' } as const
    let checked = 0
    for (const [path, concrete] of Object.entries(url)) {
      for (const [method, operation] of Object.entries(doc.paths[path] as Record<string, Operation>)) {
        for (const p of operation.parameters ?? []) {
          if (p.in !== 'query' || p.schema.enum === undefined) continue
          const send = (value: string) => req(host, method.toUpperCase(), `${concrete}?${p.name}=${value}`, method === 'post' ? { clientMessageId: `m-${p.name}-${value}`, content: 'hi' } : undefined)
          for (const value of p.schema.enum) {
            const taken = await send(value)
            expect(taken.status, `${method} ${path} ?${p.name}=${value}`).toBeLessThan(300)
            await taken.body?.cancel()
          }
          const refused = await send('bogus')
          expect(refused.status).toBe(400)
          expect((await json(refused)).error.details.path).toBe(`?${p.name}`)
          checked += 1
        }
      }
    }
    expect(checked).toBe(3) // from, chunks, wait
  })
})
