// A turn that failed because the provider answered 429 or 5xx, with no retry plugin in the config:
// `bosun run` and the chat printed the error and nothing more, though Bosun brings the plugin that
// retries exactly these (found walking the product: the first 429 of a new project ended its turn).
// One line now says so — only when the config has no retry plugin and a retry could help.
// The OpenAI adapter against its local replay server (packages/adapters/openai/src/testing/server.ts).
import { beforeAll, describe } from 'vitest'
import { startServer, status, type TestServer } from '../../adapters/openai/src/testing/server.js'
import { bosun, it, requireBuild, writeProject } from './helpers.js'
import { OPENAI_ADAPTER } from './provider-replay.js'
import { Keys, runInPty, type PtyResult } from './pty.js'

beforeAll(requireBuild)

const HINT = 'The retry plugin retries these (a 429 or 5xx answer), waiting between attempts; the config has none: add "retry" to its "plugins" (it comes with bosun), or run: bosun plugins add retry'
const RATE_LIMITED = status(429, '{"error":{"message":"Rate limit reached for requests","type":"requests"}}')
const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`

/** A project whose model is the OpenAI adapter on a local server answering every request with `reply`; the server closes when the test ends. */
async function project(dir: string, finished: (close: () => Promise<void>) => void, reply: ReturnType<typeof status>, plugins: unknown[] = []): Promise<TestServer> {
  const server = await startServer()
  finished(() => server.close())
  server.fallback = reply
  await writeProject(dir, {
    model: { adapter: './openai.mjs', options: { model: 'm', baseURL: server.url } },
    store: ['store-jsonl', { dir: '.bosun/sessions' }],
    plugins,
  }, { 'openai.mjs': OPENAI_ADAPTER })
  return server
}

describe.concurrent('a turn failed on a 429 or 5xx, and the retry plugin', () => {
  it.for([
    ['429', RATE_LIMITED, 'RATE_LIMIT'],
    ['503', status(503, '{"error":{"message":"The server is overloaded"}}'), 'SERVER'],
  ] as const)('bosun run, no retry plugin, the provider answers %s: the error, then the line naming the plugin', async ([, reply, code], { dir, expect, onTestFinished }) => {
    const server = await project(dir, onTestFinished, reply)
    const run = await bosun(['run', 'hi'], { cwd: dir })
    expect(run.code, run.stderr).toBe(1)
    expect(run.stderr).toMatch(new RegExp(`error ${code}: [^\\n]*\\n${HINT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`))
    expect(server.requests).toHaveLength(1)
  })

  it('bosun run with the retry plugin in the config: it retried, and no line sends the user to add it', async ({ dir, expect, onTestFinished }) => {
    const server = await project(dir, onTestFinished, RATE_LIMITED, [['retry', { maxAttempts: 2, minDelayMs: 0, maxDelayMs: 10 }]])
    const run = await bosun(['run', 'hi'], { cwd: dir })
    expect(run.code, run.stderr).toBe(1)
    expect(run.stderr).toContain('error RATE_LIMIT: ')
    expect(run.stderr).not.toContain('retry plugin')
    expect(server.requests).toHaveLength(2)
  })

  it.for([
    ['a 429 no wait helps (insufficient_quota)', status(429, '{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}'), 'RATE_LIMIT'],
    ['a 400', status(400, '{"error":{"message":"Unsupported parameter","type":"invalid_request_error"}}'), 'INVALID_REQUEST'],
  ] as const)('bosun run, no retry plugin, %s: no such line', async ([, reply, code], { dir, expect, onTestFinished }) => {
    await project(dir, onTestFinished, reply)
    const run = await bosun(['run', 'hi'], { cwd: dir })
    expect(run.code, run.stderr).toBe(1)
    expect(run.stderr).toContain(`error ${code}: `)
    expect(run.stderr).not.toContain('retry plugin')
  })

  it('bosun chat (in a terminal), no retry plugin, a 429: the line under the failed turn', async ({ dir, expect, onTestFinished }) => {
    await project(dir, onTestFinished, RATE_LIMITED)
    const result = await runInPty(['chat', '--session', 'limited'], [
      { expect: '○ idle' },
      { send: `hi${Keys.enter}` },
      { expect: 'bosun plugins add retry' },
      { send: Keys.ctrlD },
      { wait_exit: true },
      // Wide enough for the line to fit in one row, so the wait above cannot fall on a wrap.
    ], { cwd: dir, cols: 260 })
    expect(result.ok, explain(result)).toBe(true)
    // The chat word-wraps its lines to the terminal: read the screen as running text.
    const text = result.screen.replace(/\s+/g, ' ')
    expect(text, explain(result)).toMatch(/✗ turn 1 failed: RATE_LIMIT: .*Rate limit reached for requests.* The retry plugin retries these/)
    expect(text).toContain(HINT)
  })
})
