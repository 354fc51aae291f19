import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import { requireBuild, tempDir } from './helpers.js'
import { runInPty } from './pty.js'

beforeAll(requireBuild)

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir('bosun-pty-driver-')))
afterEach(() => cleanup())

it('the pty driver kills a program still running when the steps end and still returns what the screen showed', async () => {
  // The driver reaped the killed chat, then waited for it again (ECHILD): the run failed with a
  // Python traceback instead of the scenario's result and screen.
  const result = await runInPty(['chat', '--session', 'left-open'], [{ expect: 'idle' }], { cwd: dir })
  expect(result.ok).toBe(true)
  expect(result.exit_code).toBe(-9)
  expect(result.screen).toContain('○ idle')
})
