import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import type { BosunEventMap } from '@bosun/core'
import { bosun, finished, it, readEvents, requireBuild, start, waitFor, writeProject } from './helpers.js'
import { Keys, runInPty } from './pty.js'

beforeAll(requireBuild)

// The answer streams a chunk a second (abort-aware): the signal goes as soon as its first chunk
// shows, and the turn is still streaming then however busy the machine is.
const SLOW = { model: { adapter: 'scripted', options: { responses: [{ text: 'Zq slow answer that takes a good while to arrive', chunkSize: 2, delayMs: 1000 }] } } }

describe.concurrent('bosun chat: a signal while a turn runs', () => {
  // The input has ended (start() closes stdin) before the answer streams: before, SIGTERM was not
  // handled at all, and Ctrl+C was no longer once the input ended — either killed the process and
  // left the turn open in the log, as kill -9 does.
  it.for([
    ['SIGTERM', 143, 'terminated'],
    ['SIGINT', 0, 'interrupted'],
  ] as const)('piped input that has ended, %s: aborts the running turn and the chat leaves: exit %i, the turn closed (%s), the next line still queued', async ([signal, code, reason], { dir, expect }) => {
    await writeProject(dir, SLOW)
    const child = start(['chat', '--session', 'sig'], { cwd: dir, input: 'first\nsecond\n' })
    await waitFor(() => child.output.stdout.includes('Zq'), 'the first chunk of the answer')
    child.kill(signal)
    const result = await finished(child)
    expect(result.signal).toBe(null)
    expect(result.code).toBe(code)
    expect(result.stdout).toContain(`■ turn 1 aborted (${reason})`)
    expect(result.stdout).toContain('session sig saved')
    const events = await readEvents(dir, 'sig')
    const ends = events.filter((event) => event.type === 'turn/end').map((event) => (event.data as BosunEventMap['turn/end']))
    expect(ends).toEqual([{ turn: 1, reason: { kind: 'aborted', reason } }])
    expect(events.find((event) => event.type === 'assistant/message')?.data).toMatchObject({ interrupted: true })
    // Consistent: opening the session again repairs nothing, and runs the message still queued (an echo model now).
    await writeProject(dir, {})
    const again = await bosun(['run', '--session', 'sig', 'third'], { cwd: dir })
    expect(again.stderr).not.toContain('stopped mid-turn')
    expect(again).toMatchObject({ code: 0, stdout: 'echo: second\necho: third\n' })
  })

  it('on a terminal, SIGTERM while the answer streams: exit 143, the turn closed (terminated)', async ({ dir, expect }) => {
    await writeProject(dir, SLOW)
    const result = await runInPty(['chat', '--session', 'tty'], [
      { expect: 'idle' },
      { send: `hello${Keys.enter}` },
      { expect: 'Zq' },
      { signal: 'SIGTERM' },
      { wait_exit: true },
    ], { cwd: dir })
    expect(result.error).toBe(null)
    expect(result.exit_code).toBe(143)
    expect(result.screen).toContain('■ turn 1 aborted (terminated)')
    expect(result.screen).toContain('session tty saved')
    const events = await readEvents(dir, 'tty')
    expect(events.filter((event) => event.type === 'turn/end').map((event) => event.data)).toEqual([{ turn: 1, reason: { kind: 'aborted', reason: 'terminated' } }])
  })
})

/** Two messages are answered at once (two steps: the first can be summarised); the summary /compact
 * then asks for never arrives (one chunk in ten minutes, abort-aware): only an abort ends it. */
const COMPACTING = {
  model: { adapter: 'scripted', options: { responses: [{ text: 'hi there' }, { text: 'hi again' }, { text: 'Zq summary', chunkSize: 1, delayMs: 600_000 }] } },
  plugins: [['compaction', { contextWindow: 64, thresholdRatio: 1, retainRatio: 0 }]],
}

describe.concurrent('bosun chat: a signal while /compact runs', () => {
  // SIGINT: before, Ctrl+C aborted only a running turn, and a compaction runs as maintenance (the
  // status says idle): the chat waited for the summary. Either way it then said "nothing to compact".
  it.for([
    ['SIGTERM', 143],
    ['SIGINT', 0],
  ] as const)('piped input that has ended, %s: aborts the compaction (a model call, not a turn), says so, and the chat leaves: exit %i, the history as it was', async ([signal, code], { dir, expect }) => {
    await writeProject(dir, COMPACTING)
    const child = start(['chat', '--session', 'compacting'], { cwd: dir, input: 'hello\nagain\n/compact\n' })
    await waitFor(() => child.output.stdout.includes('compacting…'), '/compact to start')
    await waitFor(() => child.output.stdout.includes('turn 2 completed'), 'the answers before it')
    // Logged as the compaction starts its model call (as maintenance: the agent shows as idle).
    const log = join(dir, '.bosun/sessions/compacting.jsonl')
    await waitFor(() => existsSync(log) && readFileSync(log, 'utf8').includes('"compaction/start"'), 'the compaction to start')
    child.kill(signal)
    const result = await finished(child)
    expect(result.signal).toBe(null)
    expect(result.code).toBe(code)
    expect(result.stdout).toContain('/compact stopped: the history is as it was')
    expect(result.stdout).not.toContain('nothing to compact')
    expect(result.stdout).toContain('session compacting saved')
    const events = await readEvents(dir, 'compacting')
    expect(events.some((event) => event.type === 'compaction/summary')).toBe(false)
    expect(events.filter((event) => event.type === 'compaction/end').map((event) => event.data)).toEqual([{ ok: false, reason: 'aborted' }])
  })

  it('piped input, SIGTERM while a turn runs with a /compact waiting behind it: the compaction never starts, exit 143', async ({ dir, expect }) => {
    // Two quick answers (something to summarise), a slow third; /compact waits for the turns. Before,
    // it ran once the aborted turn ended, and its summary never arrives: the chat never left.
    await writeProject(dir, {
      ...COMPACTING,
      model: { adapter: 'scripted', options: { responses: [{ text: 'hi there' }, { text: 'hi again' }, SLOW.model.options.responses[0], { text: 'Zq summary', chunkSize: 1, delayMs: 600_000 }] } },
    })
    const child = start(['chat', '--session', 'behind'], { cwd: dir, input: 'hello\nagain\nthird\n/compact\n' })
    await waitFor(() => child.output.stdout.includes('compacting…') && child.output.stdout.includes('Zq slow'), 'the third answer to stream, /compact waiting')
    child.kill('SIGTERM')
    const result = await finished(child)
    expect(result.signal).toBe(null)
    expect(result.code).toBe(143)
    expect(result.stdout).toContain('■ turn 3 aborted (terminated)')
    expect(result.stdout).toContain('/compact stopped: the history is as it was')
    const events = await readEvents(dir, 'behind')
    expect(events.some((event) => event.type.startsWith('compaction/'))).toBe(false)
  })

  it('on a terminal, Ctrl+C aborts the compaction and says so; the chat goes on', async ({ dir, expect }) => {
    await writeProject(dir, COMPACTING)
    const result = await runInPty(['chat', '--session', 'tty'], [
      { expect: 'idle' },
      { send: `hello${Keys.enter}` },
      { expect: 'turn 1 completed' },
      { send: `again${Keys.enter}` },
      { expect: 'turn 2 completed' },
      { send: `/compact${Keys.enter}` },
      { expect: 'compacting…' },
      { send: Keys.ctrlC },
      { expect: '/compact stopped: the history is as it was' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(result.error).toBe(null)
    expect(result.exit_code).toBe(0)
    expect(result.screen).not.toContain('nothing to compact')
    expect(result.screen).toContain('session tty saved')
    const events = await readEvents(dir, 'tty')
    expect(events.some((event) => event.type === 'compaction/summary')).toBe(false)
    expect(events.filter((event) => event.type === 'compaction/end').map((event) => event.data)).toEqual([{ ok: false, reason: 'aborted' }])
  })
})
