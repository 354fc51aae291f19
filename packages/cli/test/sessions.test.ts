import { beforeAll, describe } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { GUARD_PLUGIN, bosun, readEvents, requireBuild, it, writeProject } from './helpers.js'

beforeAll(requireBuild)


/** Two completed turns in session `s-1` (written with the core API: the commands under test run as processes). */
async function twoTurns(dir: string): Promise<void> {
  const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
  const agent = await createAgent({ model: scripted(), store, sessionId: 's-1' })
  agent.followup('first prompt')
  agent.followup('second prompt')
  await agent.whenIdle()
  await agent.close()
  await store.close()
}

describe.concurrent('bosun sessions', () => {
  it('list shows every readable session and skips a damaged one with a warning', async ({ dir, expect }) => {
    await twoTurns(dir)
    await writeFile(join(dir, '.bosun/sessions/broken.jsonl'), '{"bosun":"session","id":"broken","version":1,"createdAt":1}\nnot json\n{"seq":1}\n')
    const result = await bosun(['sessions', 'list'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/\ns-1 +.* +2 +.* first prompt\n$/)
    expect(result.stderr).toMatch(/^skipped broken: CORRUPT_LOG: Session log .*broken\.jsonl is damaged at line 2\b/)
  })

  // A fork's parent was in `--json` only: the table gave a fork no sign of where it came from.
  it('list shows a fork\'s parent in FORKED FROM (with --tree too); without a fork, no such column', async ({ dir, expect }) => {
    await twoTurns(dir)
    const before = await bosun(['sessions', 'list'], { cwd: dir })
    expect(before.stdout).toMatch(/^ID +CREATED +TURNS/)
    expect((await bosun(['sessions', 'fork', 's-1', '--at-turn', '1', '--id', 'child'], { cwd: dir })).code).toBe(0)
    const [list, tree] = await Promise.all([bosun(['sessions', 'list'], { cwd: dir }), bosun(['sessions', 'list', '--tree'], { cwd: dir })])
    for (const result of [list, tree]) {
      expect(result.code).toBe(0)
      const rows = result.stdout.trimEnd().split('\n')
      expect(rows[0]).toMatch(/^ID +FORKED FROM +CREATED +TURNS +LAST ACTIVITY +FIRST PROMPT$/)
      expect(rows.find((row) => row.startsWith('child '))).toMatch(/^child +s-1 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +1 +.* first prompt$/)
      expect(rows.find((row) => row.startsWith('s-1 '))).toMatch(/^s-1 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +2 +/)
    }
  })

  it('show lists the turns, how each ended, and what is still queued', async ({ dir, expect }) => {
    await twoTurns(dir)
    const [result, asJson] = await Promise.all([bosun(['sessions', 'show', 's-1'], { cwd: dir }), bosun(['sessions', 'show', 's-1', '--json'], { cwd: dir })])
    expect(result.code).toBe(0)
    const text = result.stdout.replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, '<time>')
    expect(text).toContain('session  s-1\ncreated  <time>\nevents   23\nturns    2\nlast     <time>\npending  nothing queued\n')
    expect(text).toMatch(/TURN\s+ENDED\s+STARTED\s+PROMPT\n1\s+completed\s+<time>\s+first prompt\n2\s+completed\s+<time>\s+second prompt\n/)
    const json = JSON.parse(asJson.stdout)
    expect(json).toMatchObject({ id: 's-1', turns: 2, firstPrompt: 'first prompt', pending: { nextTurn: [], nextStep: [] } })
  })

  it('show gives a turn that never reached a step (blocked by a plugin) the message it claimed as its prompt', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: ['./guard.mjs'] }, { 'guard.mjs': GUARD_PLUGIN })
    expect((await bosun(['run', '--session', 's', 'hello'], { cwd: dir })).code).toBe(0)
    expect((await bosun(['run', '--session', 's', 'a forbidden question'], { cwd: dir })).code).toBe(3)
    const [table, json] = await Promise.all([bosun(['sessions', 'show', 's'], { cwd: dir }), bosun(['sessions', 'show', 's', '--json'], { cwd: dir })])
    expect(JSON.parse(json.stdout).turnList.map((turn: { prompt?: string }) => turn.prompt)).toEqual(['hello', 'a forbidden question'])
    expect(table.stdout).toMatch(/\n2 +blocked by guard +\S+ \S+ +a forbidden question\n/)
  })

  it('fork --at-turn N makes a new session seeded with the first N turns, which resumes on its own', async ({ dir, expect }) => {
    await twoTurns(dir)
    const fork = await bosun(['sessions', 'fork', 's-1', '--at-turn', '1', '--id', 'child'], { cwd: dir })
    expect(fork).toMatchObject({ code: 0, stdout: 'child\n' })
    expect(fork.stderr).toContain('forked s-1 after turn 1 as child')
    const events = await readEvents(dir, 'child')
    expect(events.at(-1)!.type).toBe('session/end-seed')
    expect(events.filter((event) => event.type === 'turn/end')).toHaveLength(1)

    const next = await bosun(['run', '--session', 'child', 'another second prompt'], { cwd: dir })
    expect(next).toMatchObject({ code: 0, stdout: 'echo: another second prompt\n' })
    const log = await bosun(['log', 'child'], { cwd: dir })
    expect(log.stdout).toContain('forked from s-1')
    expect(log.stdout).toContain("── the fork's own history starts here")
    expect(log.stdout).not.toContain('user      second prompt')
  })

  it('fork refuses a turn that has not completed, and an unknown session', async ({ dir, expect }) => {
    await twoTurns(dir)
    const [tooFar, missing] = await Promise.all([bosun(['sessions', 'fork', 's-1', '--at-turn', '5'], { cwd: dir }), bosun(['sessions', 'fork', 'nope'], { cwd: dir })])
    expect(tooFar.code).toBe(1)
    expect(tooFar.stderr).toMatch(/^error INVALID_ARGUMENT: Cannot fork session "s-1" after turn 5: there is no such turn\./)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^error SESSION_NOT_FOUND: No session "nope" in \.bosun\/sessions \(JSONL\)/)
  })

  it('resume chats on an existing session: the queue left from before is shown and runs with the next message', async ({ dir, expect }) => {
    // A session whose last run was aborted before its queued message could run.
    const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
    const agent = await createAgent({ model: scripted(), store, sessionId: 'parked' })
    agent.followup('left from before')
    agent.abort('closed')
    await agent.close()
    await store.close()

    const result = await bosun(['resume', 'parked'], { cwd: dir, input: 'and now this\n' })
    expect(result.code).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines[0]).toBe('bosun chat · session parked (resumed, 0 turns) · scripted · .bosun/sessions (JSONL)')
    expect(lines).toContain('1 message is still queued from before: Enter runs it, or it runs before your next message (/queue, /drop <n>).')
    expect(result.stdout).toMatch(/› left from before\necho: left from before\n.*turn 1 completed.*\n› and now this\necho: and now this\n/)
    expect((await readEvents(dir, 'parked')).filter((event) => event.type === 'turn/end')).toHaveLength(2)
  })

  it('resume says when the last run stopped mid-turn and the turn was closed as interrupted, even with nothing re-queued', async ({ dir, expect }) => {
    // The log of a run killed while the answer streamed: a turn/start, its step, no turn/end.
    const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
    const agent = await createAgent({ model: scripted({ responses: [{ text: 'a long answer', delayMs: 5_000 }] }), store, sessionId: 'running' })
    agent.followup('go')
    while (!agent.session.events.some((event) => event.type === 'request/header')) await new Promise((resolve) => setTimeout(resolve, 10))
    await agent.session.flush()
    const text = await readFile(join(dir, '.bosun/sessions/running.jsonl'), 'utf8')
    await writeFile(join(dir, '.bosun/sessions/killed.jsonl'), text.replace('"id":"running"', '"id":"killed"'))
    await agent.close()
    await store.close()

    const result = await bosun(['resume', 'killed'], { cwd: dir, input: '' })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('The last run stopped mid-turn; turn 1 was closed as interrupted.')

    // bosun run on such a session says it too, on stderr, before its answer (stdout stays the answer).
    await writeFile(join(dir, '.bosun/sessions/killed-2.jsonl'), text.replace('"id":"running"', '"id":"killed-2"'))
    const ran = await bosun(['run', '-s', 'killed-2', 'next'], { cwd: dir })
    expect(ran.code).toBe(0)
    expect(ran.stdout).toBe('echo: next\n')
    expect(ran.stderr).toContain('note: The last run stopped mid-turn; turn 1 was closed as interrupted.')
  })

  it('resume of an unknown session fails with SESSION_NOT_FOUND, creating nothing', async ({ dir, expect }) => {
    const result = await bosun(['resume', 'ghost'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^error SESSION_NOT_FOUND: No session "ghost" in \.bosun\/sessions \(JSONL\)\. `bosun sessions list` shows the sessions there\.\n$/)
  })

  it('a config with a memory store has no sessions to list', async ({ dir, expect }) => {
    await writeFile(join(dir, 'mem.json'), '{ "store": "memory" }')
    const result = await bosun(['sessions', 'list', '--config', 'mem.json'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^error NO_PERSISTENT_STORE: The config .*mem\.json keeps sessions in memory/)
  })

  // It said "saved · continue it with `bosun resume <id>`", which then answered NO_PERSISTENT_STORE.
  it('a chat on a memory store says on leaving that the session is gone, not how to resume it', async ({ dir, expect }) => {
    await writeFile(join(dir, 'mem.json'), '{ "store": "memory" }')
    const result = await bosun(['chat', '--session', 'm1', '--config', 'mem.json'], { cwd: dir, input: 'hi\n' })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('session m1 ended and is gone: the config keeps sessions in memory ("store": "memory")')
    expect(result.stdout).not.toContain('bosun resume')
    expect(result.stdout).not.toContain('saved')
  })
})
