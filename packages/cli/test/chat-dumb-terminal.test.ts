import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { requireBuild, tempDir, writeProject } from './helpers.js'
import { Keys, runInPty, type PtyResult } from './pty.js'

// TERM=dumb (Emacs' M-x shell, some CI consoles): a terminal that cannot move the cursor. The chat
// drew its live area there anyway — cursor up, erase down at every redraw — which such a terminal
// shows as escape codes between the lines.

beforeAll(requireBuild)

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir('bosun-chat-dumb-')))
afterEach(() => cleanup())

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`

describe('bosun chat on a dumb terminal', () => {
  it('chats without moving the cursor: no escape sequence at all; Ctrl+C aborts a turn, Ctrl+D leaves', async () => {
    await writeProject(dir, {
      // The second answer is silent until aborted: that turn is still running whenever Ctrl+C arrives.
      model: { adapter: 'scripted', options: { responses: [{ text: 'first answer' }, { text: 'never shown', delayMs: 600_000 }] } },
    })
    const result = await runInPty(['chat', '--session', 'dumb'], [
      { expect: 'Ctrl\\+D exits' },
      { send: `hi${Keys.enter}` },
      { expect: 'turn 1 completed' },
      { send: `wait${Keys.enter}` },
      { expect: '› wait' },
      { send: Keys.ctrlC },
      { expect: 'turn 2 aborted \\(interrupted\\)' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir, env: { TERM: 'dumb' } })
    expect(result.ok, explain(result)).toBe(true)
    expect(result.exit_code).toBe(0)
    expect(result.raw).not.toContain('\u001b')
    expect(result.screen).toContain('first answer')
    expect(result.screen).not.toContain('never shown')
  })
})
