import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'
import { Keys, runInPty } from './pty.js'

beforeAll(requireBuild)

// An error's message ends with what to do about it (a provider's 401: the variable to name with
// apiKeyEnv), after the provider's own words, up to 1,000 characters. The chat and `bosun log` cut
// it at 200, so that end — the point of the message — was never shown; `bosun run` showed it whole.
const PROVIDER_WORDS = `Incorrect API key provided: sk-test1***********cdef. ${'You can find your API key in your account settings. '.repeat(4)}`
const MESSAGE = `The server at 127.0.0.1:8000 answered HTTP 401: ${PROVIDER_WORDS}(no key was sent: name the environment variable that holds it with the option apiKeyEnv, e.g. "apiKeyEnv": "VLLM_API_KEY")`
const FAILING = { model: { adapter: 'scripted', options: { responses: [{ error: { status: 401, message: MESSAGE } }] } } }

describe.concurrent("a failed turn's error message is shown whole, with what to do at its end", () => {
  it('bosun chat on a terminal, and bosun log after it', async ({ dir, expect }) => {
    await writeProject(dir, FAILING)
    const result = await runInPty(['chat', '--session', 'auth'], [
      { expect: 'idle' },
      { send: `hello${Keys.enter}` },
      { expect: 'turn 1 failed' },
      { expect: 'idle' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir, cols: 100 })
    expect(result.error).toBe(null)
    // Word-wrapped to the terminal: joined again, the rows hold the message to its last word.
    const shown = result.screen.replace(/\s+/g, ' ')
    expect(shown).toContain(`✗ turn 1 failed: AUTH: ${MESSAGE}`.replace(/\s+/g, ' '))
    const log = await bosun(['log', 'auth'], { cwd: dir })
    expect(log.code).toBe(0)
    expect(log.stdout).toContain(`✗ error AUTH: ${MESSAGE} · 1 step`)
  })
})
