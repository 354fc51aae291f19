import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { createAgent, type SessionEvent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { bosun, readEvents, requireBuild, writeProject, it } from './helpers.js'
import { Keys, runInPty } from './pty.js'

beforeAll(requireBuild)

/**
 * What a model, a tool or a message can put in a session: OSC 52 (sets the clipboard), OSC 0
 * (the window title), CSI 2J (clears the screen), a lone CR (overwrites the line), a C1 CSI
 * (U+009B, the one-character form of ESC [), BEL, DEL, and the bidi override and isolate controls
 * (U+202E, U+2066) that make a line read differently from what it holds.
 */
const HOSTILE = 'A\u001b]52;c;ZXZpbA==\u0007 B\u001b]0;pwned\u0007 C\u001b[2J D\rE \u009b2J F\u007f G\u202eH\u2066I'
/** The same text as the CLI shows it. */
const SHOWN = 'A␛]52;c;ZXZpbA==␇ B␛]0;pwned␇ C␛[2J D␍E \\u009b2J F␡ G\\u202eH\\u2066I'
/** Any control character but newline and tab, and the bidi controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
/**
 * What must never reach a terminal from a session (the CLI's own colours and cursor moves may; a
 * CR may end a line: the pty writes each newline as CRLF, after readline's own CR).
 */
const DANGEROUS = /\u001b\]|\u001b\[2J|\u0007|\u009b|\u007f|[\u202a-\u202e\u2066-\u2069]|\r(?!\r*\n)/

const ECHO_TOOL = `export default {
  name: 'echo',
  description: 'Says it back.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
  execute: ({ text }) => text,
}
`
/** A config whose model answers with the hostile text and calls a tool that returns it. */
const HOSTILE_CONFIG = {
  model: { adapter: 'scripted', options: { responses: [{ text: HOSTILE, toolCalls: [{ name: 'echo', args: { text: HOSTILE } }] }, { text: `done ${HOSTILE}` }] } },
  tools: ['./tools/echo.mjs'],
}

/** Session `hostile`: the text in a message, an answer, a tool call and result, a retry, a plugin event and a still-queued message. */
async function hostileSession(dir: string): Promise<void> {
  const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
  const tool = { name: 'echo', description: 'Says it back.', parameters: { type: 'object' }, execute: ({ text }: { text: string }) => text }
  const agent = await createAgent({
    model: scripted({ responses: [{ toolCalls: [{ name: 'echo', args: { text: HOSTILE } }] }, { text: HOSTILE }] }),
    store, sessionId: 'hostile', tools: [tool],
  })
  agent.followup(HOSTILE)
  await agent.whenIdle()
  agent.session.append('llm/retry', { turn: 1, step: 2, attempt: 1, delayMs: 5, error: { code: 'SERVER', message: HOSTILE } })
  agent.session.append('acme/note', { note: HOSTILE })
  agent.followup(`queued ${HOSTILE}`)
  agent.abort('closed')
  await agent.close()
  await store.close()
}

describe.concurrent('terminal safety: text from a session never reaches the terminal as control sequences', () => {
  it('bosun log shows control characters as visible symbols in every part of the timeline, --all included', async ({ dir, expect }) => {
    await hostileSession(dir)
    const [log, all] = await Promise.all([bosun(['log', 'hostile'], { cwd: dir }), bosun(['log', 'hostile', '--all'], { cwd: dir })])
    for (const result of [log, all]) {
      expect(result.code).toBe(0)
      expect(result.stdout + result.stderr).not.toMatch(CONTROL)
    }
    expect(log.stdout).toContain(`user      ${SHOWN}`)
    expect(log.stdout).toContain(`assistant ${SHOWN}`)
    expect(log.stdout).toContain(`after SERVER: ${SHOWN}`)
    expect(log.stdout).toContain('acme/note {"note":"A␛]52;c;ZXZpbA==␇')
  })

  it('bosun log --json stays JSON that parses to the stored events, with DEL and C1 controls escaped too', async ({ dir, expect }) => {
    await hostileSession(dir)
    const result = await bosun(['log', 'hostile', '--json'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).not.toMatch(CONTROL)
    expect(result.stdout).toContain('\\u009b2J F\\u007f G\\u202eH\\u2066I')
    const events = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    expect(events).toEqual(await readEvents(dir, 'hostile'))
  })

  it('bosun sessions list and show make the prompts, turns and queued messages safe', async ({ dir, expect }) => {
    await hostileSession(dir)
    const [list, show, json] = await Promise.all([
      bosun(['sessions', 'list'], { cwd: dir }),
      bosun(['sessions', 'show', 'hostile'], { cwd: dir }),
      bosun(['sessions', 'show', 'hostile', '--json'], { cwd: dir }),
    ])
    for (const result of [list, show, json]) {
      expect(result.code).toBe(0)
      expect(result.stdout + result.stderr).not.toMatch(CONTROL)
    }
    expect(list.stdout).toContain('A␛]52;c;ZXZpbA==␇')
    expect(show.stdout).toContain(`1. queued ${SHOWN}`)
    expect(JSON.parse(json.stdout).pending.nextTurn).toEqual([`queued ${HOSTILE}`])
  })

  it('bosun run into a pipe writes the answer byte for byte, while the tool lines on stderr are made safe', async ({ dir, expect }) => {
    await writeProject(dir, HOSTILE_CONFIG, { 'tools/echo.mjs': ECHO_TOOL })
    const result = await bosun(['run', 'go'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${HOSTILE}\ndone ${HOSTILE}\n`)
    expect(result.stderr).not.toMatch(CONTROL)
    expect(result.stderr).toContain('← echo: A␛]52;c;ZXZpbA==␇')
  })

  it('bosun run on a terminal shows the answer and the tool lines with visible control characters', async ({ dir, expect }) => {
    await writeProject(dir, HOSTILE_CONFIG, { 'tools/echo.mjs': ECHO_TOOL })
    const result = await runInPty(['run', 'go'], [{ wait_exit: true }], { cwd: dir, cols: 200 })
    expect(result.ok, result.error ?? '').toBe(true)
    expect(result.exit_code).toBe(0)
    expect(result.raw).not.toMatch(DANGEROUS)
    expect(result.screen).toContain(`${SHOWN}\n`)
    expect(result.screen).toContain(`done ${SHOWN}`)
    expect(result.screen).toContain('← echo: A␛]52;c;ZXZpbA==␇')
  })

  it('bosun log and sessions show on a terminal send no control sequence from the session', async ({ dir, expect }) => {
    await hostileSession(dir)
    for (const args of [['log', 'hostile'], ['sessions', 'show', 'hostile']]) {
      const result = await runInPty(args, [{ wait_exit: true }], { cwd: dir, cols: 200 })
      expect(result.exit_code, args.join(' ')).toBe(0)
      expect(result.raw).not.toMatch(DANGEROUS)
      expect(result.screen).toContain('A␛]52;c;ZXZpbA==␇')
    }
  })

  it('bosun chat on a terminal shows the streamed answer, the message and the tool lines safely', async ({ dir, expect }) => {
    await writeProject(dir, HOSTILE_CONFIG, { 'tools/echo.mjs': ECHO_TOOL })
    const result = await runInPty(['chat', '--session', 'c'], [
      { expect: '○ idle' },
      { send: `say it${Keys.enter}` },
      { expect: 'turn 1 completed' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir, cols: 200 })
    expect(result.ok, result.error ?? '').toBe(true)
    expect(result.raw).not.toMatch(DANGEROUS)
    expect(result.screen).toContain(`${SHOWN}\n  → echo(`)
    expect(result.screen).toContain(`  ← echo: ${SHOWN}`)
    expect(result.screen).toContain(`done ${SHOWN}`)
  })
})
