// watchStreams (connection.ts) when the page drops a stream while the host's refusal of it is still
// being read: the page has moved on (another session selected, logged out), so nothing is reported —
// a report would land on the state of the stream that replaced it.
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { watchStreams, type ConnectionState, type StreamKind } from '../app/state/connection.js'
import { until } from './host-harness.js'

let server: Server | undefined
const held: ServerResponse[] = []
afterEach(async () => {
  for (const response of held.splice(0)) response.destroy()
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

it.each([
  ['session', '/v1/sessions/a/stream'],
  ['list', '/v1/stream'],
] as const)('a %s stream aborted while its 503 refusal is read reports nothing', async (kind, path) => {
  // A refusal whose body has not all arrived: its head is sent, the rest held.
  server = createServer((_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' })
    response.write('{"error":{"code":"too-many-streams",')
    held.push(response)
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`

  const reports: Array<{ state: ConnectionState; stream: StreamKind }> = []
  let answered = false
  const watched = watchStreams(async (input, init) => {
    const response = await fetch(input, init)
    answered = true
    return response
  }, (change, stream) => reports.push({ state: change({ state: 'connecting', retries: 0 }), stream }))
  const controller = new AbortController()
  const attempt = watched(url, { signal: controller.signal }).then(() => 'settled', () => 'settled')
  await until(() => answered, "the refusal's head")
  controller.abort()
  expect(await attempt).toBe('settled')
  expect(reports).toEqual([])

  // Not aborted: the same refusal, once its body is in, is reported for its stream.
  answered = false
  const next = watched(url, {})
  await until(() => answered && held.length === 2, "the second refusal's head")
  held[1]!.end('"message":"full"}}')
  expect((await next).status).toBe(503)
  expect(reports).toEqual([{ stream: kind, state: { state: 'reconnecting', retries: 1, refusal: { status: 503, code: 'too-many-streams', retryAfterMs: 5000 }, nextAttemptAt: expect.any(Number) } }])
})
