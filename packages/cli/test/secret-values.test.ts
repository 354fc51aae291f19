// A secret's exact value never reaches the session file or the terminal, whatever its shape: a
// word-like key (no provider prefix, not random) that a server or a plugin quotes back is masked
// by value, as `bosun run` registers the variables the config's `…Env` options name.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'

beforeAll(requireBuild)

const KEY = 'my-gateway-secret'

const servers: Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

/** An OpenAI-compatible server that refuses every request with a 401 whose body quotes the key, as many do. */
async function quotingServer(): Promise<string> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(401, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}. You can find your API key in your dashboard.`, code: 'invalid_api_key' } }))
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

/** Every session file's text (the JSONL log and its summary). */
async function sessionFiles(dir: string): Promise<string> {
  const folder = join(dir, '.bosun/sessions')
  const names = await readdir(folder)
  const texts = await Promise.all(names.map((name) => readFile(join(folder, name), 'utf8')))
  return texts.join('\n')
}

/** A plugin naming its token with a `tokenEnv` option, whose step check fails quoting the token (as a careless client library would). */
const GATE_PLUGIN = `export default {
  kind: 'bosun-plugin',
  name: 'gate',
  setup({ hooks, name }, { tokenEnv }) {
    hooks.preStep.tapPromise(name, async () => {
      throw new Error('the gateway refused the token ' + process.env[tokenEnv] + ': check it')
    })
  },
}
`

describe('bosun run: a word-like secret quoted back', () => {
  it('by the provider in a 401 body (openai adapter, apiKeyEnv): not in the events, the session file or stderr', async ({ dir, expect }) => {
    const baseURL = await quotingServer()
    await writeProject(dir, { model: { adapter: 'openai', options: { baseURL, model: 'm', apiKeyEnv: 'X1_GATEWAY_KEY' } }, store: ['store-jsonl', { dir: '.bosun/sessions' }] })
    const result = await bosun(['run', 'hi'], { cwd: dir, env: { X1_GATEWAY_KEY: KEY } })
    expect(result.stderr).toContain('error AUTH:')
    expect(result.stderr).toContain('Incorrect API key provided: [redacted].')
    const stored = await sessionFiles(dir)
    expect(stored).toContain('"type":"turn/end"')
    expect(`${result.stdout}${result.stderr}${stored}`).not.toContain(KEY)
  })

  it("by a plugin's error (its tokenEnv option): not in turn/end, the session file or stderr", async ({ dir, expect }) => {
    await writeProject(
      dir,
      { model: { adapter: 'scripted', options: { responses: [] } }, store: ['store-jsonl', { dir: '.bosun/sessions' }], plugins: [['./gate.mjs', { tokenEnv: 'X1_GATE_TOKEN' }]] },
      { 'gate.mjs': GATE_PLUGIN },
    )
    const result = await bosun(['run', 'hi'], { cwd: dir, env: { X1_GATE_TOKEN: KEY } })
    expect(result.stderr).toContain('the gateway refused the token [redacted]: check it')
    const stored = await sessionFiles(dir)
    expect(stored).toMatch(/"type":"turn\/end".*the gateway refused the token \[redacted\]: check it/)
    expect(`${result.stdout}${result.stderr}${stored}`).not.toContain(KEY)
  })

  it("by a plugin's setup that fails: the error bosun prints masks it, with --debug too", async ({ dir, expect }) => {
    const failing = `export default {
  kind: 'bosun-plugin',
  name: 'gate',
  setup(context, { tokenEnv }) {
    throw new Error('the gateway refused the token ' + process.env[tokenEnv] + ': check it')
  },
}
`
    await writeProject(dir, { plugins: [['./gate.mjs', { tokenEnv: 'X1_GATE_TOKEN' }]] }, { 'gate.mjs': failing })
    for (const args of [['run', 'hi'], ['run', 'hi', '--debug']]) {
      const result = await bosun(args, { cwd: dir, env: { X1_GATE_TOKEN: KEY } })
      expect(result.code).not.toBe(0)
      expect(result.stderr).toContain('the gateway refused the token [redacted]: check it')
      expect(`${result.stdout}${result.stderr}`).not.toContain(KEY)
    }
  })
})
