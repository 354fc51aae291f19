// `bosun resume` after a turn that did not complete (found walking the CLI as a new user): the
// banner showed `last answer: …` — an earlier turn's answer — and nothing of the last turn, whose
// message a plugin had blocked, so it read as the reply to it. The banner now says the last turn
// did not complete, and how it ended.
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'
import { Keys, runInPty, type PtyResult } from './pty.js'

beforeAll(requireBuild)

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`

describe.concurrent('bosun resume after a turn that did not complete', () => {
  it('says the last turn did not complete, and how it ended; after a completed turn it says nothing of the kind', async ({ dir, expect }) => {
    // An hour's window: the second turn is blocked however slow the machine is.
    await writeProject(dir, { plugins: [['rate-limit', { turnsPerMinute: 1, windowMs: 3_600_000 }]] })
    expect((await bosun(['run', '-s', 'limited', 'first question'], { cwd: dir })).code).toBe(0)
    expect((await bosun(['run', '-s', 'limited', 'second question'], { cwd: dir })).code).toBe(3)
    expect((await bosun(['run', '-s', 'fine', 'only question'], { cwd: dir })).code).toBe(0)
    const steps = [{ expect: '○ idle' }, { send: Keys.ctrlD }, { wait_exit: true as const }]
    // One after the other: the pty driver reads its scenario from a file in the cwd.
    const blocked = await runInPty(['resume', 'limited'], steps, { cwd: dir, cols: 120 })
    const completed = await runInPty(['resume', 'fine'], steps, { cwd: dir, cols: 120 })
    expect(blocked.ok, explain(blocked)).toBe(true)
    expect(blocked.screen, explain(blocked)).toContain('last answer: echo: first question\nthe last turn (2) did not complete: blocked by rate-limit. `bosun log limited` shows why.\n')
    expect(completed.ok, explain(completed)).toBe(true)
    expect(completed.screen, explain(completed)).toContain('last answer: echo: only question\n')
    expect(completed.screen).not.toContain('did not complete')
  })
})
