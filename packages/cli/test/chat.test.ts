import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { SessionEvent, UserMessage } from '@bosun/core'
import { GUARD_PLUGIN, bosun, readEvents, requireBuild, tempDir, writeProject } from './helpers.js'
import { Keys, runInPty, type PtyResult } from './pty.js'

beforeAll(requireBuild)

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir('bosun-chat-')))
afterEach(() => cleanup())

/**
 * A scripted model slow enough to type while it streams. The third answer shows 'Here is a long'
 * after 2 s and then takes 12 s more (a chunk a second, abort-aware): Ctrl+C lands while it streams
 * however busy the machine (60 ms chunks left under 3 s to queue a line and press it).
 */
const CONFIG = {
  model: {
    adapter: 'scripted',
    options: {
      responses: [
        { text: 'Let me check the clock for you.', chunkSize: 3, delayMs: 100, toolCalls: [{ name: 'clock', args: {} }] },
        { text: 'It is noon. Being brief.', chunkSize: 4, delayMs: 40 },
        { text: 'Here is a long answer that streams slowly, so that there is time to press Ctrl+C before it ends.', chunkSize: 7, delayMs: 1000 },
      ],
    },
  },
  tools: ['./tools/clock.mjs'],
}

/**
 * A tool (`./tools/<file>.mjs`) that answers `result` only once a file named `gate` exists in the
 * cwd (the scenario's `{ touch: 'gate' }`): the turn stays running, its next step not begun, for
 * as long as the test types and looks, however fast the answer streams or slowly the terminal is driven.
 */
const gatedTool = (name: string, result: string): string => `import { existsSync } from 'node:fs'
export default {
  name: ${JSON.stringify(name)},
  description: 'Answers once the test opens the gate.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async execute() {
    while (!existsSync('gate')) await new Promise((resolve) => setTimeout(resolve, 20))
    return ${JSON.stringify(result)}
  },
}
`

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`

const turnEnds = (events: SessionEvent[]) =>
  events.filter((event) => event.type === 'turn/end').map((event) => (event.data as { turn: number; reason: { kind: string } }).reason.kind)
const userMessages = (events: SessionEvent[]) =>
  events.filter((event) => event.type === 'user/message').map((event) => {
    const message = event.data as UserMessage
    return `${(event.data as { content: { text: string }[] }).content[0]!.text}${message.source.kind === 'user' ? '' : ` (${message.source.kind})`}`
  })

describe('bosun chat in a real terminal', () => {
  it('queues a line typed while the answer streams, steers the running turn, aborts with Ctrl+C and keeps the queue, exits with Ctrl+D', async () => {
    // The clock answers once the queue is seen with the steer in it: the steer lands in step 2 of
    // turn 1 whatever the speed (step 1 streamed for 1.1 s, all the time there was to queue a line,
    // steer and take the snapshot).
    await writeProject(dir, CONFIG, { 'tools/clock.mjs': gatedTool('clock', '12:00\nsecond line of the result') })
    const result = await runInPty(['chat', '--session', 'chat-1'], [
      { expect: '○ idle · scripted · 0 queued' },
      { send: `What time is it?${Keys.enter}` },
      { expect: 'Let me' },
      // Typed while turn 1 streams: queued, shown as such until its turn starts.
      { send: `second question${Keys.enter}` },
      { expect: '1\\. queued: second question' },
      { send: `/steer be brief${Keys.enter}` },
      { expect: '2\\. steer: be brief' },
      { expect: '● running · turn 1 · scripted · 2 queued' },
      { snapshot: 'while streaming' },
      { touch: 'gate' },
      // The steer lands in step 2 of turn 1; the queued line then runs as turn 2.
      { expect: 'turn 1 completed' },
      { expect: 'Here is a long' },
      { send: `third question${Keys.enter}` },
      { expect: '1\\. queued: third question' },
      { send: Keys.ctrlC },
      { expect: 'turn 2 aborted \\(interrupted\\) — 1 queued message kept \\(Enter runs it\\)' },
      { expect: '○ idle · scripted · 1 queued — Enter runs it' },
      { snapshot: 'after ctrl+c' },
      // The session stays usable: Enter on an empty line runs the kept message, then a new one.
      { send: Keys.enter },
      { expect: 'echo: third question' },
      { expect: 'turn 3 completed' },
      { send: `still there?${Keys.enter}` },
      { expect: 'echo: still there\\?' },
      { expect: 'turn 4 completed' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(result.ok, explain(result)).toBe(true)
    expect(result.exit_code).toBe(0)

    // The transcript: what a person saw, in order.
    const screen = result.screen.replace(/ · \d+ steps? · [\d.]+m?s/g, '')
    expect(screen).toContain(
      [
        '› What time is it?',
        'Let me check the clock for you.',
        '  → clock({})',
        '  ← clock: 12:00 (+1 lines)',
        '  ↳ steer: be brief',
        'It is noon. Being brief.',
        '  ─ turn 1 completed',
        '› second question',
      ].join('\n'),
    )
    expect(screen).toMatch(/› second question\nHere is a long[^\n]*\n {2}■ turn 2 aborted \(interrupted\) — 1 queued message kept \(Enter runs it\)\n› third question\necho: third question\n {2}─ turn 3 completed\n› still there\?\necho: still there\?\n {2}─ turn 4 completed\n/)
    expect(screen).toMatch(/session chat-1 saved · continue it with `bosun resume chat-1`/)
    expect(result.snapshots['while streaming']).toMatch(/ {2}1\. queued: second question\n {2}2\. steer: be brief\n● running · turn 1 · scripted · 2 queued\n›$/)
    // No colour codes or cursor movement leaked into the transcript.
    expect(screen).not.toMatch(/\u001b|\[\d+[A-Za-z]/)

    // The session log agrees.
    const events = await readEvents(dir, 'chat-1')
    expect(turnEnds(events)).toEqual(['completed', 'aborted', 'completed', 'completed'])
    expect(userMessages(events)).toEqual(['What time is it?', 'be brief', 'second question', 'third question', 'still there?'])
    const stepsOfTurn1 = events.filter((event) => event.type === 'step/start' && (event.data as { turn: number }).turn === 1)
    expect(stepsOfTurn1).toHaveLength(2)
    const json = await bosun(['log', 'chat-1', '--json'], { cwd: dir })
    expect(json.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual(events)
  })

  /** Chats one answer of `text` on a 40-column terminal: the program's bytes and the answer's rows as shown. */
  const oneWideAnswer = async (session: string, text: string, chunkSize: number) => {
    await writeProject(dir, { model: { adapter: 'scripted', options: { responses: [{ text, chunkSize, delayMs: 15 }] } } })
    const result = await runInPty(['chat', '--session', session], [
      { expect: 'idle' },
      { send: `go${Keys.enter}` },
      { expect: 'turn 1 completed' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir, cols: 40 })
    expect(result.ok, explain(result)).toBe(true)
    return { raw: result.raw, answer: result.screen.slice(result.screen.indexOf('› go\n') + 5, result.screen.indexOf('  ─ turn 1 completed')) }
  }

  it('draws an answer line wider than the terminal once: its preview wraps over rows the next redraw erases, no copies left behind', async () => {
    // One paragraph, no newline, streamed in small chunks: 60 numbered words, about 7 rows of 40 columns.
    const words = Array.from({ length: 60 }, (_, index) => `w${index + 1}x`)
    const { answer } = await oneWideAnswer('chat-wide', words.join(' '), 6)
    // Every word once, in order, in rows no wider than the terminal.
    expect(answer.split(/\s+/).filter(Boolean)).toEqual(words)
    expect(Math.max(...answer.split('\n').map((row) => row.length))).toBeLessThan(40)
  })

  it('wraps a coloured answer line by the columns it shows: rows as full as plain ones, every word once', async () => {
    // Every other word bold: the rendered line carries an escape sequence per word. Counted as
    // columns, they made rows end early (and could cut a sequence in two, showing part as text).
    const words = Array.from({ length: 40 }, (_, index) => `w${index + 1}x`)
    const { raw, answer } = await oneWideAnswer('chat-colour', words.map((word, index) => (index % 2 === 0 ? `**${word}**` : word)).join(' '), 12)
    expect(raw).toContain('\u001b[1mw1x\u001b[22m')
    expect(answer.split(/\s+/).filter(Boolean)).toEqual(words)
    const rows = answer.trimEnd().split('\n')
    // Each row is as full as the 39 columns allow: the next row's first word would not have fit.
    for (const [index, row] of rows.slice(0, -1).entries()) {
      expect(row.length, `row ${index + 1}: ${row}`).toBeLessThan(40)
      expect(`${row} ${rows[index + 1]!.split(' ')[0]}`.length, `row ${index + 1}: ${row}`).toBeGreaterThan(39)
    }
  })

  it('word-wraps answer lines that arrive finished (a newline in the chunk) as it wraps the unfinished one', async () => {
    // Markdown rendering streams each line once finished, in one piece: a line wider than the
    // terminal went out whole and the terminal cut it mid-word (`di` / `verse`) — only the answer's
    // last line, still unfinished while it streamed, was word-wrapped.
    const words = Array.from({ length: 24 }, (_, index) => `w${index + 1}x`)
    const text = `${words.slice(0, 12).join(' ')}\n${words.slice(12).join(' ')}\nend`
    for (const [session, chunkSize] of [['chat-lines', 60], ['chat-lines-small', 5]] as const) {
      const { answer } = await oneWideAnswer(session, text, chunkSize)
      expect(answer.split(/\s+/).filter(Boolean), answer).toEqual([...words, 'end'])
      expect(Math.max(...answer.split('\n').map((row) => row.length)), answer).toBeLessThan(40)
    }
  })

  it('Ctrl+D while the answer streams: its unfinished line once, the aborted turn on a row of its own', async () => {
    // Ctrl+D goes as soon as the first chunk shows; the rest of the line would take 20 more seconds
    // (a chunk a second, abort-aware), so the answer is still streaming however busy the machine.
    await writeProject(dir, { model: { adapter: 'scripted', options: { responses: [{ text: 'Zq-unfinished line, and more words after it.', chunkSize: 2, delayMs: 1000 }] } } })
    const result = await runInPty(['chat', '--session', 'chat-leave'], [
      { expect: 'idle' },
      { send: `go${Keys.enter}` },
      { expect: 'Zq' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(result.ok, explain(result)).toBe(true)
    expect(result.exit_code).toBe(0)
    expect(result.screen.match(/Zq/g)).toHaveLength(1)
    expect(result.screen).toMatch(/\nZq[^\n]*\n {2}■ turn 1 aborted \(closed\)\nsession chat-leave saved/)
  })

  it('shows a blocked turn with the plugin and its metadata, lists and drops queued messages, and leaves on a second Ctrl+C', async () => {
    await writeProject(
      dir,
      // Turn 1 runs until the drop is seen: its tool answers only then (the answer's next step is
      // the scripted model's echo). A 2.5 s streamed answer was all the time there was for it.
      {
        model: { adapter: 'scripted', options: { responses: [{ text: 'A slow answer, long enough to queue two more lines behind it.', chunkSize: 2, delayMs: 80, toolCalls: [{ name: 'wait_for_drop', args: {} }] }] } },
        tools: ['./tools/gate.mjs'],
        plugins: ['./guard.mjs'],
      },
      { 'tools/gate.mjs': gatedTool('wait_for_drop', 'dropped'), 'guard.mjs': GUARD_PLUGIN },
    )
    const result = await runInPty(['chat', '--session', 'chat-2'], [
      { expect: 'idle' },
      { send: `something forbidden${Keys.enter}` },
      { expect: 'turn 1 blocked by guard: \\{"word":"forbidden","reason":"policy"\\}' },
      { send: `go${Keys.enter}` },
      { expect: 'A slow' },
      { send: `keep me${Keys.enter}` },
      { send: `drop me${Keys.enter}` },
      { expect: '2\\. queued: drop me' },
      { send: `/queue${Keys.enter}` },
      { expect: ' {2}1\\. queued: keep me\n {2}2\\. queued: drop me' },
      { send: `/drop 2${Keys.enter}` },
      { expect: 'dropped 2: drop me' },
      { touch: 'gate' },
      { expect: 'echo: keep me' },
      { expect: '○ idle' },
      { send: `/help${Keys.enter}` },
      { expect: '/drop <n>' },
      { send: Keys.ctrlC },
      { expect: 'Ctrl\\+C again or Ctrl\\+D exits' },
      { send: Keys.ctrlC },
      { wait_exit: true },
    ], { cwd: dir })
    expect(result.ok, explain(result)).toBe(true)
    expect(result.exit_code).toBe(0)
    const events = await readEvents(dir, 'chat-2')
    expect(turnEnds(events)).toEqual(['blocked', 'completed', 'completed'])
    expect(userMessages(events)).toEqual(['go', 'keep me'])
    expect(events.some((event) => event.type === 'agent/inbox/spliced' && (event.data as { outcome?: string }).outcome === 'canceled')).toBe(true)
  })
})
