// Every route that finds no such session says what to do next (walkthrough of docs/host.md): GET
// /v1/sessions/nosuch answered only 'No session "nosuch" in this host's store.', while the routes
// that resume a session already said to create it with POST /v1/sessions.
import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req } from './helpers.js'

const t = perTest()

const ADVICE = 'No session "nosuch" in this host\'s store: GET /v1/sessions lists the sessions there, POST /v1/sessions creates one.'

describe('host: session-not-found says how to find or create the session', () => {
  it.each([
    ['GET', '/v1/sessions/nosuch', undefined],
    ['GET', '/v1/sessions/nosuch/events', undefined],
    ['GET', '/v1/sessions/nosuch/children', undefined],
    ['GET', '/v1/sessions/nosuch/messages/m-1', undefined],
    ['POST', '/v1/sessions/nosuch/fork', {}],
  ])('%s %s: 404 session-not-found with the advice and details.id', async (method, path, body) => {
    const { host } = makeHost(t.dir)
    t.closing.push(host)
    const response = await req(host, method, path, body)
    expect(response.status).toBe(404)
    expect((await json(response)).error).toEqual({ code: 'session-not-found', message: ADVICE, details: { id: 'nosuch' } })
  })
})
