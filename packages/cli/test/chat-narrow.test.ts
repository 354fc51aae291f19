import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { requireBuild, tempDir } from './helpers.js'
import { Keys, runInPty, type PtyResult } from './pty.js'

// The chat's own lines on a terminal narrower than they are: the answer was word-wrapped, but the
// banner, /help and the closing "continue it with `bosun resume <id>`" were left to the terminal,
// which cut them mid-word — at 80 columns a generated id was split in two in the very command to copy.

beforeAll(requireBuild)

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir('bosun-chat-narrow-')))
afterEach(() => cleanup())

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`
const COLUMNS = 60
const ID = 'narrow-20261204-092735-wzgd'

describe('bosun chat on a narrow terminal', () => {
  it('word-wraps its own lines: no row filled to the edge, the session id whole', async () => {
    const result = await runInPty(['chat', '--session', ID], [
      { expect: '○ idle · scripted · 0 queued' },
      { send: `/help${Keys.enter}` },
      { expect: '/exit' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir, cols: COLUMNS })
    expect(result.ok, explain(result)).toBe(true)
    expect(result.exit_code).toBe(0)
    // A row as wide as the terminal is one the terminal itself cut (the chat wraps one column short).
    const full = result.screen.split('\n').filter((row) => row.length >= COLUMNS)
    expect(full, explain(result)).toEqual([])
    expect(result.screen).toMatch(new RegExp(`\`bosun\\s+resume\\s+${ID}\``))
    expect(result.screen).toMatch(new RegExp(`\`bosun\\s+log\\s+${ID}\``))
  })
})
