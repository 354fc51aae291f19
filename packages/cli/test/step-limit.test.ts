// The bundled step-limit plugin, named by its short name in a config file: a model that keeps
// calling tools is stopped at maxSteps, the CLI says so and how to raise it, and the session goes on.
import { describe } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { bosun, it, readEvents, requireBuild, sessionIdFrom, writeProject } from './helpers.js'
import { beforeAll } from 'vitest'

beforeAll(requireBuild)

/** A model stuck calling a tool that does not exist, then (if the script gets that far) an answer. */
const looping = (calls: number, then: unknown[] = []) => ({
  model: { adapter: 'scripted', options: { responses: [...Array.from({ length: calls }, () => ({ toolCalls: [{ name: 'no_such_tool' }] })), ...then] } },
  plugins: [['step-limit', { maxSteps: 2 }]],
})

const SAID = 'blocked by step-limit: the turn reached its limit of 2 steps (model calls) and was stopped; ' +
  'what it did is kept, so another message goes on from there. To allow more, raise maxSteps in the config: ["step-limit", { "maxSteps": 4 }]'

const turnEnds = (events: readonly SessionEvent[]) =>
  events.filter((event) => event.type === 'turn/end').map((event) => (event as SessionEvent<'turn/end'>).data.reason.kind)

describe.concurrent('step-limit from a config file', () => {
  it('bosun run: the turn ends blocked (exit 3) after maxSteps, said in words; the next run in the session completes', async ({ dir, expect }) => {
    await writeProject(dir, looping(10), { 'answer.json': JSON.stringify({ plugins: [['step-limit', { maxSteps: 2 }]] }) })
    const blocked = await bosun(['run', 'go'], { cwd: dir })
    expect(blocked.code).toBe(3)
    expect(blocked.stderr).toContain(SAID)
    const id = sessionIdFrom(blocked.stderr)
    const events = await readEvents(dir, id)
    expect(events.filter((event) => event.type === 'step/start')).toHaveLength(2)
    expect(events.filter((event) => event.type === 'agent/pre-step/rejected').map((event) => event.data)).toEqual([
      { turn: 1, by: 'step-limit', metadata: { reason: 'max-steps', maxSteps: 2, step: 3 } },
    ])
    // The same session, with a model that answers (the scripted one echoes): the turn after the tool results runs.
    const next = await bosun(['--config', 'answer.json', 'run', '-s', id, 'what happened?'], { cwd: dir })
    expect(next).toMatchObject({ code: 0, stdout: 'echo: what happened?\n' })
    expect(turnEnds(await readEvents(dir, id))).toEqual(['blocked', 'completed'])
  })

  it('bosun chat: the transcript says the limit was reached, and the next message runs', async ({ dir, expect }) => {
    await writeProject(dir, looping(2, [{ text: 'back on track' }]))
    const result = await bosun(['chat', '--session', 'loop'], { cwd: dir, input: 'go\nwhat happened?\n' })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`⊘ turn 1 ${SAID}`)
    expect(result.stdout).toContain('back on track')
    expect(turnEnds(await readEvents(dir, 'loop'))).toEqual(['blocked', 'completed'])
  })
})
