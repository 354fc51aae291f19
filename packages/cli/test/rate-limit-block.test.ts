// A turn the rate-limit plugin blocked (review): `bosun run` and the chat printed the plugin's
// metadata as JSON — `blocked by rate-limit: {"limit":1,"windowMs":60000,"retryAfterMs":59125,
// "counts":"turns","burst":1,"key":"session","onLimit":"reject"}` — leaving the user to work out
// what was limited and when to try again. Now a sentence says both; `--json` keeps the metadata.
import { beforeAll, describe } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { bosun, it, readEvents, requireBuild, writeProject } from './helpers.js'
import { Keys, runInPty, type PtyResult } from './pty.js'

beforeAll(requireBuild)

// An hour's window: a loaded machine cannot take long enough between two turns for the limit to lapse.
const limited = (onLimit: string) => ({ plugins: [['rate-limit', { turnsPerMinute: 1, windowMs: 3_600_000, onLimit }]] })
const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`
// The wait is rounded up: just under an hour is said as 1h 00m.
const AT = String.raw`\d\d:\d\d:\d\d \(in (?:\d\dm \d\ds|1h 00m)\)`
const REJECTED = new RegExp(String.raw`blocked by rate-limit: the rate limit of 1 turn an hour for this session is used up, so the message did not run; send it again at ${AT}\.`)

describe.concurrent('a turn blocked by the rate-limit plugin', () => {
  it('bosun run says which limit and when to send again (exit 3); --json keeps the metadata', async ({ dir, expect }) => {
    await writeProject(dir, limited('reject'), { 'requeue.json': JSON.stringify(limited('requeue')) })
    expect((await bosun(['run', '-s', 'once', 'first'], { cwd: dir })).code).toBe(0)
    const [blocked, json] = [await bosun(['run', '-s', 'once', 'second'], { cwd: dir }), await bosun(['run', '-s', 'once', '--json', 'third'], { cwd: dir })]
    expect(blocked.code).toBe(3)
    expect(blocked.stderr).toMatch(REJECTED)
    expect(blocked.stderr).not.toContain('{')
    expect(json.code).toBe(3)
    const end = json.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as SessionEvent).find((event) => event.type === 'turn/end') as SessionEvent<'turn/end'>
    expect(end.data.reason).toMatchObject({ kind: 'blocked', by: 'rate-limit', metadata: { limit: 1, windowMs: 3_600_000, counts: 'turns', key: 'session', onLimit: 'reject' } })

    // bosun log says it too, told from when the turn ended (it showed the metadata as JSON).
    const log = await bosun(['log', 'once'], { cwd: dir })
    expect(log.stdout).toMatch(/⊘ blocked by rate-limit: the rate limit of 1 turn an hour for this session was used up, so the message did not run; it could be sent again at \d\d:\d\d:\d\d \((?:\d\dm \d\ds|1h 00m) later\)\./)
    expect(log.stdout).not.toContain('retryAfterMs')

    expect((await bosun(['--config', 'requeue.json', 'run', '-s', 'again', 'first'], { cwd: dir })).code).toBe(0)
    const requeued = await bosun(['--config', 'requeue.json', 'run', '-s', 'again', 'second'], { cwd: dir })
    expect(requeued.code).toBe(3)
    expect(requeued.stderr).toMatch(new RegExp(String.raw`blocked by rate-limit: the rate limit of 1 turn an hour for this session is used up; the message goes back in the queue at ${AT}\.`))
    expect((await readEvents(dir, 'again')).filter((event) => event.type === 'rate-limit/requeued')).toHaveLength(1)
  })

  it('bosun chat (in a terminal) says it on the turn\'s line', async ({ dir, expect }) => {
    await writeProject(dir, limited('reject'))
    const result = await runInPty(['chat', '--session', 'chatty'], [
      { expect: '○ idle' },
      { send: `first${Keys.enter}` },
      { expect: 'echo: first' },
      { send: `second${Keys.enter}` },
      { expect: 'send it again' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(result.ok, explain(result)).toBe(true)
    // The chat word-wraps its lines to the terminal: read the screen as running text.
    const text = result.screen.replace(/\s+/g, ' ')
    expect(text, explain(result)).toMatch(new RegExp(String.raw`⊘ turn 2 ${REJECTED.source}`))
    expect(text).not.toContain('retryAfterMs')
  })
})
