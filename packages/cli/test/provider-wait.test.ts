// A provider that answers 429 with a long Retry-After: the retry plugin does not wait longer than
// its maxDelayMs, so the turn ends with the error — and the user was told "answered HTTP 429" but
// not when to try again, though the error carries the wait (found walking a provider swap).
// bosun run says it as the turn ends; bosun log says it as what happened then.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'
import { OPENAI_ADAPTER } from './provider-replay.js'

beforeAll(requireBuild)

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

describe('a turn that ends on a provider\'s long wait', () => {
  it('bosun run and bosun log say how long the provider asked to wait, and until when', async ({ dir, expect }) => {
    const server = createServer((req, res) => {
      req.resume()
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '600' }).end('{"error":{"message":"Rate limit reached for requests"}}')
    })
    const baseURL = await listen(server)
    try {
      await writeProject(dir, {
        model: { adapter: './openai.mjs', options: { model: 'm', baseURL } },
        store: ['store-jsonl', { dir: '.bosun/sessions' }],
        plugins: ['retry'],
      }, { 'openai.mjs': OPENAI_ADAPTER })
      const run = await bosun(['run', 'hi'], { cwd: dir })
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/error RATE_LIMIT: .*Rate limit reached for requests.* — the provider asks for a wait of 10m 00s: send it again at \d\d:\d\d:\d\d\./s)
      const listed = await bosun(['sessions', 'list', '--json'], { cwd: dir })
      const { id } = JSON.parse(listed.stdout.trim()) as { id: string }
      const log = await bosun(['log', id], { cwd: dir })
      expect(log.stdout).toMatch(/✗ error RATE_LIMIT: .* — the provider asked for a wait of 10m 00s: it could be sent again at \d\d:\d\d:\d\d\./)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  })
})
