import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, readEvents, requireBuild, sessionIdFrom, it } from './helpers.js'

beforeAll(requireBuild)


describe.concurrent('a newcomer in an empty folder, with no config and no network', () => {
  it('bosun run "hello" answers offline, keeps the session in .bosun/sessions, and log and sessions list show it', async ({ dir, expect }) => {
    const run = await bosun(['run', 'hello'], { cwd: dir })
    expect(run.stderr).toMatch(/^session \d{8}-\d{6}-[a-z0-9]{4}\n$/)
    expect(run).toMatchObject({ code: 0, stdout: 'echo: hello\n' })
    const id = sessionIdFrom(run.stderr)
    // The session's log, and the list summary the JSONL store writes beside it when the run closes it.
    expect((await readdir(join(dir, '.bosun/sessions'))).sort()).toEqual([`${id}.jsonl`, `${id}.summary.json`])

    const log = await bosun(['log', id], { cwd: dir })
    expect(log.code).toBe(0)
    expect(log.stdout.replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, '<time>').replace(/\d+ms/g, '<ms>')).toBe(
      [
        `session ${id} · created <time>`,
        '+ queued: "hello"',
        'turn 1  <time>',
        '  step 1 · scripted',
        '    user      hello',
        '    context: no system prompt, no tools',
        '    assistant echo: hello',
        '  ✓ completed · 1 step · <ms>',
        '',
      ].join('\n'),
    )

    const list = await bosun(['sessions', 'list'], { cwd: dir })
    expect(list.code).toBe(0)
    const [header, row, ...rest] = list.stdout.trimEnd().split('\n')
    expect(header).toMatch(/^ID\s+CREATED\s+TURNS\s+LAST ACTIVITY\s+FIRST PROMPT$/)
    expect(row).toMatch(new RegExp(`^${id}\\s+\\S+ \\S+\\s+1\\s+\\S+ \\S+\\s+hello$`))
    expect(rest).toEqual([])
  })

  it('--session continues the same session: the turn counter goes on and the history is kept', async ({ dir, expect }) => {
    const first = await bosun(['run', 'one'], { cwd: dir })
    const id = sessionIdFrom(first.stderr)
    const second = await bosun(['run', '--session', id, 'two'], { cwd: dir })
    expect(second).toMatchObject({ code: 0, stdout: 'echo: two\n' })
    const events = await readEvents(dir, id)
    expect(events.filter((event) => event.type === 'turn/end').map((event) => (event.data as { turn: number }).turn)).toEqual([1, 2])
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index))
  })

  it('an empty folder has no sessions yet, and says how to start one', async ({ dir, expect }) => {
    const list = await bosun(['sessions', 'list'], { cwd: dir })
    expect(list).toMatchObject({ code: 0, stdout: '' })
    expect(list.stderr).toContain('No sessions yet. Start one with `bosun run "hello"`')
    expect(existsSync(join(dir, '.bosun'))).toBe(false)
  })
})
