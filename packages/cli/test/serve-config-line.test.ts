// Review Y11: `bosun serve` never said which config or model it served — with no config it ran the
// scripted echo model without a word. Its first stderr line now names the config file and the
// model (adapter and model id; never an option's value), or says the offline defaults apply.
import { describe, expect } from 'vitest'
import { aiSdkProject } from './ai-sdk-project.js'
import { finished, it, requireBuild, start, waitFor, writeProject } from './helpers.js'

requireBuild()

const SECRET = 'sk-proj-servelinesecret0123456789abcdef'

/** `bosun serve --port 0` in `dir` until it listens; its stderr then, after it stopped. */
async function serveStderr(dir: string, env: Record<string, string> = {}): Promise<string> {
  const child = start(['serve', '--port', '0'], { cwd: dir, env })
  // Its last line before it waits for a signal (it stops on SIGTERM from then on).
  await waitFor(() => /^no token: loopback only/m.test(child.output.stderr), 'its token line')
  child.kill('SIGTERM')
  expect((await finished(child)).code).toBe(0)
  return child.output.stderr
}

describe('bosun serve says what it serves', () => {
  it('no config: the offline defaults, named as such, on the first line', async ({ dir }) => {
    const stderr = await serveStderr(dir)
    expect(stderr.split('\n')[0]).toBe(`no config found (searched from ${dir} up to the project root): offline defaults — scripted model (it echoes each message), sessions in .bosun/sessions (JSONL)`)
  })

  it('a config: its file and its adapter and model, never an option value', async ({ dir }) => {
    await writeProject(dir, {
      // A valid config (serve refuses one it cannot build): the secret-looking value in the baseURL's path.
      model: { adapter: 'openai', options: { baseURL: `http://127.0.0.1:9/${SECRET}/v1`, model: 'gpt-4.1-nano', apiKeyEnv: 'SERVE_LINE_KEY' } },
      store: 'memory',
    })
    const stderr = await serveStderr(dir, { SERVE_LINE_KEY: SECRET })
    expect(stderr.split('\n')[0]).toBe('config: bosun.config.json — model: openai gpt-4.1-nano, sessions in the memory store')
    expect(stderr).not.toMatch(/127\.0\.0\.1:9|SERVE_LINE_KEY|sk-proj/)
  })

  it("an AI SDK model object: the bridge, the model id and the provider, not the object", async ({ dir }) => {
    await aiSdkProject(
      dir,
      `import aiSdk from '@bosun/adapter-ai-sdk'
import { createOpenAI } from '@ai-sdk/openai'
const openai = createOpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: '${SECRET}' })
export default { model: { adapter: aiSdk, options: { model: openai.chat('gpt-4.1-nano') } }, store: 'memory' }
`,
    )
    const stderr = await serveStderr(dir)
    expect(stderr.split('\n')[0]).toBe('config: bosun.config.ts — model: ai-sdk gpt-4.1-nano (provider openai.chat), sessions in the memory store')
    expect(stderr).not.toMatch(/sk-proj|specificationVersion/)
  })
})
