import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'
import { OPENAI_ADAPTER } from './provider-replay.js'

beforeAll(requireBuild)

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const project = (dir: string, baseURL: string) =>
  writeProject(dir, { model: { adapter: './openai.mjs', options: { model: 'm', baseURL, idleTimeoutMs: 60_000 } } }, { 'openai.mjs': OPENAI_ADAPTER })

describe.concurrent('bosun run --debug on a failed turn', () => {
  it('a refused connection: the request URL (no query), the failure and the time; the error names the baseURL', async ({ dir, expect }) => {
    // Port 0: nothing can listen on it (binding 0 asks for any free port), so the connection is
    // refused — a port a closed server had could be taken by another process meanwhile.
    const root = 'http://127.0.0.1:0'
    await project(dir, `${root}/v1?deployment=hush-4242`)
    const plain = await bosun(['run', 'hi'], { cwd: dir })
    expect(plain.code).toBe(1)
    expect(plain.stderr).toContain(`error TRANSPORT: Nothing answered at ${root}/v1: the connection was refused`)
    expect(plain.stderr).not.toContain('debug:')
    const debug = await bosun(['--debug', 'run', 'hi'], { cwd: dir })
    expect(debug.code).toBe(1)
    expect(debug.stderr).toMatch(new RegExp(`debug: POST ${root.replace(/\./g, '\\.')}/v1/chat/completions → ECONNREFUSED after \\d+ ms\\n`))
    expect(debug.stdout + debug.stderr).not.toContain('hush-4242')
  })

  it('a 404: the URL, HTTP 404 and the time; the error says the path has no /v1 and what to set', async ({ dir, expect }) => {
    const server = createServer((req, res) => {
      req.resume()
      res.writeHead(req.url === '/v1/chat/completions' ? 500 : 404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}')
    })
    const root = await listen(server)
    try {
      await project(dir, root)
      const result = await bosun(['run', 'hi', '--debug'], { cwd: dir })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`has no /v1: most OpenAI-compatible servers serve /v1/chat/completions, so set baseURL to ${root}/v1`)
      expect(result.stderr).toMatch(new RegExp(`debug: POST ${root.replace(/\./g, '\\.')}/chat/completions → HTTP 404 after \\d+ ms\\n`))
    } finally {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  })
})
