import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import type { BosunEventMap, SessionEvent } from '@bosun/core'
import { bosun, finished, it, readEvents, requireBuild, start, waitFor, writeProject } from './helpers.js'
import { Keys, runInPty } from './pty.js'

beforeAll(requireBuild)

// A chunk a second (abort-aware): the terminal closes while the answer still streams, however busy
// the machine is.
const SLOW = { model: { adapter: 'scripted', options: { responses: [{ text: 'Zq slow answer that takes a good while to arrive', chunkSize: 2, delayMs: 1000 }] } } }

/** Which of the signals' ends a hangup may show as: SIGHUP itself, or what the process noticed first — its input's end (the chat leaves) or a write that failed. */
const HANGUP_REASONS = ['hangup', 'closed', 'interrupted']

function turnEnds(events: SessionEvent[]): BosunEventMap['turn/end'][] {
  return events.filter((event) => event.type === 'turn/end').map((event) => event.data as BosunEventMap['turn/end'])
}

// Closing the terminal window (or losing the SSH connection) sends SIGHUP. Before, Node died of it
// at once: the turn stayed open in the log (repaired as "interrupted" on the next open), the lock
// file stayed behind, and what the last batch window held was lost. Now it leaves as on SIGTERM.
describe.concurrent('the terminal closes while a turn runs', () => {
  it('bosun chat: the turn is closed as aborted, the queued message stays queued, the lock is released, the process ends by SIGHUP', async ({ dir, expect }) => {
    await writeProject(dir, SLOW)
    const result = await runInPty(['chat', '--session', 'hup'], [
      { expect: 'idle' },
      { send: `hello${Keys.enter}` },
      { expect: 'Zq' },
      { send: `and then${Keys.enter}` },
      { expect: '1\\. queued: and then' },
      { hangup: true },
    ], { cwd: dir })
    expect(result.error).toBe(null)
    // waitstatus_to_exitcode: -1 for a process killed by signal 1 — what a shell reports as 129.
    expect(result.exit_code).toBe(-1)
    expect(existsSync(join(dir, '.bosun/sessions/hup.jsonl.lock'))).toBe(false)
    const events = await readEvents(dir, 'hup')
    const ends = turnEnds(events)
    expect(ends).toHaveLength(1)
    expect(ends[0]).toMatchObject({ turn: 1, reason: { kind: 'aborted' } })
    expect(HANGUP_REASONS).toContain((ends[0]!.reason as { reason?: string }).reason)
    // Nothing to repair on the next open, and the queued line runs first (an echo model now).
    await writeProject(dir, {})
    const again = await bosun(['run', '--session', 'hup', 'third'], { cwd: dir })
    expect(again.stderr).not.toContain('stopped mid-turn')
    expect(again).toMatchObject({ code: 0, stdout: 'echo: and then\necho: third\n' })
  })

  it('bosun run: the turn is closed as aborted, the lock is released, the process ends by SIGHUP', async ({ dir, expect }) => {
    await writeProject(dir, SLOW)
    const result = await runInPty(['run', '--session', 'hup', 'hello'], [{ expect: 'Zq' }, { hangup: true }], { cwd: dir })
    expect(result.error).toBe(null)
    expect(result.exit_code).toBe(-1)
    expect(existsSync(join(dir, '.bosun/sessions/hup.jsonl.lock'))).toBe(false)
    const ends = turnEnds(await readEvents(dir, 'hup'))
    expect(ends).toHaveLength(1)
    expect(ends[0]).toMatchObject({ turn: 1, reason: { kind: 'aborted' } })
    expect(HANGUP_REASONS).toContain((ends[0]!.reason as { reason?: string }).reason)
  })

  // Off a terminal (nohup's redirections, a supervisor): the same stop, said as SIGHUP's.
  it('bosun run piped, SIGHUP: the turn is closed as aborted (hangup), the process ends by SIGHUP', async ({ dir, expect }) => {
    await writeProject(dir, SLOW)
    const child = start(['run', '--session', 'piped', 'hello'], { cwd: dir })
    await waitFor(() => child.output.stdout.includes('Zq'), 'the first chunk of the answer')
    child.kill('SIGHUP')
    const result = await finished(child)
    expect(result.signal).toBe('SIGHUP')
    expect(result.stderr).toContain('aborted (hangup)')
    expect(existsSync(join(dir, '.bosun/sessions/piped.jsonl.lock'))).toBe(false)
    expect(turnEnds(await readEvents(dir, 'piped'))).toEqual([{ turn: 1, reason: { kind: 'aborted', reason: 'hangup' } }])
  })
})
