import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, finished, requireBuild, start, waitFor, it } from './helpers.js'

beforeAll(requireBuild)

const sessions = (dir: string) => join(dir, '.bosun/sessions')
/** Something a damaged line may hold that must never be printed back. */
const SECRET = 'sk-live-0123456789abcdefghij'

const header = (id: string) => ({ bosun: 'session', id, version: 1, createdAt: 1_773_325_325_000 })
const event = (seq: number, type: string, data: unknown) => ({ seq, time: 1_773_325_325_000 + seq, type, data })
const message = (text: string) => ({ id: `00000000-0000-4000-8000-00000000000${text.length % 10}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } })
/** A well-formed start of a session: a turn with a user message. */
const GOOD = [event(0, 'turn/start', { turn: 1 }), event(1, 'step/start', { turn: 1, step: 1 }), event(2, 'user/message', message('hello there'))]

/** Writes `<id>.jsonl` from values (one JSON line each) or raw lines (strings). */
async function writeSession(dir: string, id: string, lines: unknown[]): Promise<void> {
  await mkdir(sessions(dir), { recursive: true })
  await writeFile(join(sessions(dir), `${id}.jsonl`), lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`).join(''))
}

describe.concurrent('damaged session logs are refused as the store refuses them (CORRUPT_LOG), never shown as if fine', () => {
  const cases: [string, unknown[]][] = [
    ['an event out of order', [header('bad'), ...GOOD, event(5, 'step/end', { turn: 1, step: 1, finish: 'stop' })]],
    ['a repeated seq', [header('bad'), ...GOOD, event(2, 'user/message', message('hello again'))]],
    ['a header naming another session', [header('someone-else'), ...GOOD]],
  ]
  for (const [what, lines] of cases) {
    it(`bosun log and sessions show refuse ${what}`, async ({ dir, expect }) => {
      await writeSession(dir, 'bad', lines)
      const commands = [['log', 'bad'], ['log', 'bad', '--json'], ['sessions', 'show', 'bad']]
      const results = await Promise.all(commands.map((args) => bosun(args, { cwd: dir })))
      for (const [index, result] of results.entries()) {
        const args = commands[index]!
        expect(result.code, args.join(' ')).toBe(1)
        expect(result.stdout, args.join(' ')).toBe('')
        expect(result.stderr, args.join(' ')).toMatch(/^error CORRUPT_LOG: Session log .*bad\.jsonl is damaged at line \d/)
      }
    })
  }

  it('the message names the file and the line but never quotes the damaged line, not even with --debug', async ({ dir, expect }) => {
    await writeSession(dir, 'bad', [header('bad'), ...GOOD, `{"seq":3,"type":"user/message","data":{"text":"${SECRET}"`, event(4, 'turn/end', { turn: 1, reason: { kind: 'completed' } })])
    const commands = [['log', 'bad'], ['log', 'bad', '--debug'], ['sessions', 'show', 'bad', '--debug'], ['sessions', 'list', '--debug']]
    const results = await Promise.all(commands.map((args) => bosun(args, { cwd: dir })))
    for (const [index, result] of results.entries()) {
      const args = commands[index]!
      expect(result.stderr, args.join(' ')).toMatch(/CORRUPT_LOG: Session log .*bad\.jsonl is damaged at line 5/)
      expect(result.stdout + result.stderr, args.join(' ')).not.toContain(SECRET.slice(0, 8))
    }
  })

  it('--follow stops with CORRUPT_LOG when a damaged event is appended, after printing the good ones', async ({ dir, expect }) => {
    await writeSession(dir, 'live', [header('live'), ...GOOD])
    const follower = start(['log', 'live', '--follow'], { cwd: dir })
    await waitFor(() => follower.output.stdout.includes('hello there'), 'the existing events')
    await appendFile(join(sessions(dir), 'live.jsonl'), `${JSON.stringify(event(7, 'step/end', { turn: 1, step: 1, finish: 'stop' }))}\n`)
    const result = await finished(follower)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('user      hello there')
    expect(result.stdout).not.toContain('step ended')
    expect(result.stderr).toMatch(/error CORRUPT_LOG: Session log .*live\.jsonl is damaged at line 5\b/)
  })
})
