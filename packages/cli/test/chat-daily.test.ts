import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { bosun, requireBuild, tempDir, writeProject } from './helpers.js'
import { Keys, runInPty, type PtyResult } from './pty.js'

// The chat a person uses every day: Tab completes slash commands, a spinner with the elapsed time
// while the model has sent nothing yet (a terminal only), the turn's token usage in the status line.

beforeAll(requireBuild)

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir('bosun-chat-daily-')))
afterEach(() => cleanup())

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`

describe('bosun chat, every day', () => {
  it('Tab completes a slash command; usage summed over the turn is in the status line; a spinner counts while the model is silent, gone at Ctrl+C', async () => {
    await writeProject(dir, {
      model: {
        adapter: 'scripted',
        options: {
          responses: [
            { text: 'Checking.', toolCalls: [{ name: 'clock', args: {} }], usage: { inputTokens: 10, outputTokens: 3 } },
            { text: 'It is noon.', usage: { inputTokens: 20, outputTokens: 4 } },
            // Silent until aborted: the spinner is the only sign of life.
            { text: 'never shown', delayMs: 600_000 },
          ],
        },
      },
      tools: ['./clock.mjs'],
    }, { 'clock.mjs': 'export default { name: "clock", description: "time", parameters: { type: "object" }, execute: () => "12:00" }\n' })
    const result = await runInPty(['chat', '--session', 'daily'], [
      { expect: '○ idle · scripted · 0 queued' },
      { send: '/que\t' },
      { expect: '› /queue' },
      { send: Keys.enter },
      { expect: 'nothing queued' },
      { send: `time?${Keys.enter}` },
      { expect: 'turn 1 completed' },
      // 10 + 20 in, 3 + 4 out: both steps of the turn.
      { expect: '○ idle · scripted · last turn 30 in / 7 out tokens · 0 queued' },
      { send: `wait${Keys.enter}` },
      // Any elapsed time: the screen keeps the latest redraw (every 100 ms), and a loaded machine
      // may read the pty only after a second has gone by.
      { expect: '● running · turn 2 · . waiting for the model \\d+\\.\\ds' },
      // The timer redraws it: the elapsed time grows past a second while nothing arrives.
      { expect: 'waiting for the model [1-9]\\.\\ds' },
      { send: Keys.ctrlC },
      { expect: 'turn 2 aborted' },
      { expect: '○ idle · scripted · 0 queued' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(result.ok, explain(result)).toBe(true)
    expect(result.exit_code).toBe(0)
    // The live area was erased: no spinner is left on the screen, and none was in the transcript.
    expect(result.screen).not.toContain('waiting for the model')
    expect(result.screen).not.toContain('never shown')
  })

  it('renders the answer\'s Markdown on a terminal as it streams; --raw prints it as written', async () => {
    const answer = '# Plan\n\nSteps:\n- read **the** file\n2) run `make`\n```sh\nmake test\n```\nDone.'
    await writeProject(dir, { model: { adapter: 'scripted', options: { responses: [{ text: answer, chunkSize: 3 }, { text: answer, chunkSize: 3 }] } } })
    const rendered = await runInPty(['chat', '--session', 'md'], [
      { expect: '○ idle' },
      { send: `go${Keys.enter}` },
      { expect: 'turn 1 completed' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(rendered.ok, explain(rendered)).toBe(true)
    const screen = rendered.screen
    expect(screen).toContain('PLAN')
    expect(screen).toContain('• read the file')
    expect(screen).toContain('2. run make')
    expect(screen).toContain('┌ sh')
    expect(screen).toContain('│ make test')
    expect(screen).toContain('Done.')
    expect(screen).not.toMatch(/# Plan|\*\*|```|`make`/)

    const raw = await runInPty(['chat', '--session', 'md', '--raw'], [
      { expect: '○ idle' },
      { send: `again${Keys.enter}` },
      { expect: 'turn 2 completed' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(raw.ok, explain(raw)).toBe(true)
    expect(raw.screen).toContain('# Plan')
    expect(raw.screen).toContain('- read **the** file')
    expect(raw.screen).toContain('```sh')
  })

  it('piped, the chat prints no spinner and no status line, only the answer', async () => {
    await writeProject(dir, { model: { adapter: 'scripted', options: { responses: [{ text: 'slow answer', delayMs: 300, usage: { inputTokens: 1, outputTokens: 2 } }] } } })
    const result = await bosun(['chat', '--session', 'piped'], { cwd: dir, input: 'hello\n' })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('slow answer\n')
    expect(result.stdout + result.stderr).not.toMatch(/waiting for the model|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|tokens/)
  })

  it('a refusal (the step ended content-filter) is said in the transcript, not left as an empty answer', async () => {
    await writeProject(dir, { model: { adapter: 'scripted', options: { responses: [{ text: '', finish: 'content-filter' }] } } })
    const result = await bosun(['chat', '--session', 'refused'], { cwd: dir, input: 'hello\n' })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('  ⚠ the provider stopped the answer (content-filter: a refusal or its content filter); nothing was answered\n  ─ turn 1 completed')
  })
})
