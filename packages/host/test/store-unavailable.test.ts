// A request whose store fails (a disk error, a sessions folder that cannot be written, a database
// that is down) was answered `500 internal-error` — the code for the host's own bugs — and logged
// the store's error with its whole stack on every request. It is the server's condition, which a
// retry may outlive: `503 store-unavailable` with `retry-after`, what kind of failure it was
// (the system error code) and never the store's words (its folder's path); the host's log has the
// store's message, one line per distinct failure. Real JSONL files: the sessions folder is
// replaced by a file while the host runs (ENOTDIR; the tests run as root, where a chmod stops nothing).
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { afterEach, expect, it, vi } from 'vitest'
import { json, loggedLines, makeHost, perTest, req } from './helpers.js'

const t = perTest()
afterEach(() => {
  vi.restoreAllMocks()
})

it('a sessions folder gone mid-run: 503 store-unavailable with retry-after, the folder not named, one log line per failure; back to normal once it returns', async () => {
  const { host, store } = makeHost(t.dir)
  t.closing.push({ close: () => store.close().catch(() => {}) }, { close: () => host.close().catch(() => {}) })
  expect((await req(host, 'POST', '/v1/sessions', { id: 'a' })).status).toBe(201)
  const lines = loggedLines()
  await rm(t.dir, { recursive: true })
  await writeFile(t.dir, 'not a folder')

  for (const [method, path, body] of [['GET', '/v1/sessions'], ['GET', '/v1/sessions'], ['POST', '/v1/sessions', { id: 'b' }], ['GET', '/v1/sessions/c']] as const) {
    const answer = await req(host, method, path, body)
    expect(answer.status, `${method} ${path}`).toBe(503)
    expect(answer.headers.get('retry-after')).toBe('5')
    const { error } = await json(answer)
    expect(error.code).toBe('store-unavailable')
    expect(error.message).toContain('the sessions folder is missing or is not a folder (ENOTDIR)')
    expect(error.message).toContain('retry it in 5 s')
    expect(error.details).toMatchObject({ cause: 'ENOTDIR', retryAfter: 5 })
    // The server's side (the folder's absolute path, the store's words) stays in its log.
    expect(JSON.stringify(error)).not.toContain(t.dir)
  }

  // The store's message, one line per distinct failure (the list failed twice: one line), no stack.
  expect(lines.filter((line) => line.includes('Could not list the sessions'))).toEqual([
    `[bosun host] store-unavailable: Could not list the sessions in ${t.dir}: ENOTDIR: not a directory, scandir '${t.dir}'`,
  ])
  // Creating "b" first looks for a session of that id: the store says which read failed (store-jsonl's read errors).
  expect(lines.some((line) => /Could not (read|write) session "b"/.test(line)), JSON.stringify(lines)).toBe(true)
  expect(lines.filter((line) => /\n\s+at /.test(line))).toEqual([])
  expect(lines.filter((line) => line.includes('request failed'))).toEqual([])

  // The folder back: the same requests are answered as usual.
  await rm(t.dir)
  await mkdir(t.dir)
  expect((await req(host, 'POST', '/v1/sessions', { id: 'b' })).status).toBe(201)
  expect((await json(req(host, 'GET', '/v1/sessions'))).sessions.map((s: { id: string }) => s.id)).toContain('b')
})

it('a bug is still internal-error: a store that throws a plain Error is not a store outage', async () => {
  const lines = loggedLines()
  const { host, store } = makeHost(t.dir)
  t.closing.push({ close: () => store.close().catch(() => {}) }, { close: () => host.close().catch(() => {}) })
  store.list = async () => {
    throw new TypeError('a bug')
  }
  const answer = await req(host, 'GET', '/v1/sessions')
  expect(answer.status).toBe(500)
  expect((await json(answer)).error.code).toBe('internal-error')
  expect(lines.some((line) => line.includes('request failed') && line.includes('a bug'))).toBe(true)
})

it('the OpenAPI document has the code and every route its 503 with retry-after', async () => {
  const { host, store } = makeHost(t.dir)
  t.closing.push({ close: () => store.close().catch(() => {}) }, { close: () => host.close().catch(() => {}) })
  const document = await json(req(host, 'GET', '/v1/openapi.json'))
  expect(document.components.schemas.error.properties.error.properties.code.enum).toContain('store-unavailable')
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>)) {
    for (const [method, operation] of Object.entries(methods)) expect(operation.responses['503']?.headers, `${method} ${path}`).toHaveProperty('retry-after')
  }
})
