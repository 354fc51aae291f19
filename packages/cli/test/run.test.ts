import { beforeAll, describe } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { BIN, CLOCK_TOOL, GATE_TOOL, GUARD_PLUGIN, bosun, cleanEnv, finished, readEvents, requireBuild, sessionIdFrom, start, waitFor, writeProject, it } from './helpers.js'

beforeAll(requireBuild)


const scripted = (responses: unknown[], extra: Record<string, unknown> = {}) => ({ model: { adapter: 'scripted', options: { responses } }, ...extra })

describe.concurrent('bosun run', () => {
  it('a reader that goes away (| head) aborts the turn like Ctrl+C: no stack trace, and the turn is closed in the log', async ({ dir, expect }) => {
    await writeProject(dir, scripted([{ text: 'word '.repeat(200), chunkSize: 5, delayMs: 5 }]))
    const piped = spawnSync('sh', ['-c', `node ${JSON.stringify(BIN)} run -s piped long | head -c 12`], { cwd: dir, env: cleanEnv(), encoding: 'utf8' })
    expect(piped.stdout).toBe('word word wo')
    expect(piped.stderr).not.toMatch(/EPIPE|node:events|at .*\.js:\d+/)
    const events = await readEvents(dir, 'piped')
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'aborted' } } })
    const logged = spawnSync('sh', ['-c', `node ${JSON.stringify(BIN)} log piped | head -1`], { cwd: dir, env: cleanEnv(), encoding: 'utf8' })
    expect(logged.stdout).toMatch(/^session piped/)
    expect(logged.stderr).toBe('')
  })

  it('runs a config that names a store but no model, in a folder where nothing is installed', async ({ dir, expect }) => {
    // The store is checked on its own first: that check must not look for the default adapter in the project.
    await writeProject(dir, { store: ['store-jsonl', { dir: 'kept' }] })
    const result = await bosun(['run', 'hi'], { cwd: dir })
    expect(result.stderr).not.toContain('error')
    expect(result.code).toBe(0)
    const listed = await bosun(['sessions', 'list'], { cwd: dir })
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/\d{8}-\d{6}-\w{4}/)
  })

  it('streams the answer to stdout as it arrives, before the turn ends', async ({ dir, expect }) => {
    // The turn waits in a tool until the test opens the gate: what is on stdout by then was
    // written before the turn ended, whatever the machine's speed.
    await writeProject(dir, scripted([{ text: 'one two three', chunkSize: 4, toolCalls: [{ name: 'gate', args: {} }] }, { text: 'four five' }], { tools: ['./tools/gate.mjs'] }), {
      'tools/gate.mjs': GATE_TOOL,
    })
    const child = start(['run', 'count'], { cwd: dir })
    await waitFor(() => child.output.stdout.includes('one two three\n'), 'the first answer')
    expect(child.exitCode).toBe(null) // the turn is still in the tool
    const early = child.output.stdout
    await writeFile(join(dir, 'gate'), '')
    const result = await finished(child)
    expect(result.code).toBe(0)
    expect(early).toBe('one two three\n')
    expect(result.stdout).toBe('one two three\nfour five\n')
  })

  it('shows each tool call and its result as one line on stderr, keeping stdout for the answer', async ({ dir, expect }) => {
    await writeProject(dir, scripted([{ text: 'Checking.', toolCalls: [{ name: 'clock', args: { zone: 'UTC' } }] }, { text: 'It is noon.' }], { tools: ['./tools/clock.mjs'] }), {
      'tools/clock.mjs': CLOCK_TOOL.replace("properties: {}", "properties: { zone: { type: 'string' } }"),
    })
    const result = await bosun(['run', 'what time is it?'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('Checking.\nIt is noon.\n')
    expect(result.stderr.split('\n').slice(0, 2)).toEqual(['→ clock({"zone":"UTC"})', '← clock: 12:00'])
  })

  it('--json prints the events of the run as JSON lines, from the queued message to turn/end', async ({ dir, expect }) => {
    const result = await bosun(['run', '--json', 'hi'], { cwd: dir })
    expect(result.code).toBe(0)
    const events = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    expect(events.map((event) => event.type)).toEqual([
      'agent/inbox/spliced', 'turn/start', 'agent/inbox/spliced', 'step/start', 'user/message', 'request/context', 'request/header',
      'assistant/chunk', 'assistant/chunk', 'assistant/message', 'step/end', 'turn/end',
    ])
    expect(events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'completed' } })
    expect(events).toEqual(await readEvents(dir, sessionIdFrom(result.stderr)))
  })

  it('reads the prompt from stdin when none is given', async ({ dir, expect }) => {
    const result = await bosun(['run'], { cwd: dir, input: 'from a pipe\n' })
    expect(result).toMatchObject({ code: 0, stdout: 'echo: from a pipe\n' })
  })

  it('exits 3 when a plugin blocks the turn, naming the plugin and its metadata', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: ['./guard.mjs'] }, { 'guard.mjs': GUARD_PLUGIN })
    const result = await bosun(['run', 'something forbidden'], { cwd: dir })
    expect(result.code).toBe(3)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('blocked by guard: {"word":"forbidden","reason":"policy"}')
  })

  it('exits 1 when the turn ends in error, with the error code and message', async ({ dir, expect }) => {
    await writeProject(dir, scripted([{ error: { status: 503, message: 'the model is overloaded' } }]))
    const result = await bosun(['run', 'hi'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('error SERVER: the model is overloaded')
  })

  it('exits 0 with a warning when the answer is cut at max-tokens', async ({ dir, expect }) => {
    await writeProject(dir, scripted([{ text: 'a long answ', finish: 'max-tokens' }]))
    const result = await bosun(['run', 'hi'], { cwd: dir })
    expect(result).toMatchObject({ code: 0, stdout: 'a long answ\n' })
    expect(result.stderr).toContain("warning: the answer was cut at the model's output limit (max-tokens)")
  })

  it('says so on stderr when the provider stopped the answer for content (a refusal), with or without text', async ({ dir, expect }) => {
    // Anthropic's stop_reason "refusal" (and OpenAI's finish_reason "content_filter") end the step
    // content-filter; the turn completes, so without a word the run printed nothing and exited 0.
    await writeProject(dir, scripted([{ text: '', finish: 'content-filter' }]))
    const refused = await bosun(['run', '-s', 'refused', 'hi'], { cwd: dir })
    expect(refused).toMatchObject({ code: 0, stdout: '' })
    expect(refused.stderr).toContain('warning: the provider stopped the answer (content-filter: a refusal or its content filter); nothing was answered')
    await writeProject(dir, scripted([{ text: 'I can tell you th', finish: 'content-filter' }]))
    const cut = await bosun(['run', '-s', 'refused', 'again'], { cwd: dir })
    expect(cut).toMatchObject({ code: 0, stdout: 'I can tell you th\n' })
    expect(cut.stderr).toContain('warning: the provider stopped the answer (content-filter: a refusal or its content filter); what it wrote is above')
  })

  // SIGTERM (timeout, docker stop) as Ctrl+C: before, it killed the process at once and the turn
  // stayed open in the log, as after kill -9.
  it.for([
    ['SIGINT', 130, 'interrupted'],
    ['SIGTERM', 143, 'terminated'],
  ] as const)('%s aborts the turn: exit %i, the delivered prefix is kept as interrupted, the turn closed (%s)', async ([signal, code, reason], { dir, expect }) => {
    // The signal goes as soon as the first chunk shows; the rest would take 23 more seconds (a chunk a
    // second, abort-aware), so the turn is still streaming however busy the machine (80 ms chunks
    // left a window of under 2 s between seeing the answer and its end).
    await writeProject(dir, scripted([{ text: 'Zq slow answer that takes a good while to arrive', chunkSize: 2, delayMs: 1000 }]))
    const child = start(['run', '--session', 'slow-1', 'go'], { cwd: dir })
    await waitFor(() => child.output.stdout.includes('Zq'), 'the first chunk of the answer')
    child.kill(signal)
    const result = await finished(child)
    expect(result.code).toBe(code)
    expect(result.stderr).toContain(`aborted (${reason})`)
    const events = await readEvents(dir, 'slow-1')
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { turn: 1, reason: { kind: 'aborted', reason } } })
    expect(events.find((event) => event.type === 'assistant/message')?.data).toMatchObject({ interrupted: true })
  })

  it('refuses an invalid --session id with a coded message and no stack trace', async ({ dir, expect }) => {
    const result = await bosun(['run', '--session', '../etc/passwd', 'hi'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^error INVALID_SESSION_ID: Invalid session id "..\/etc\/passwd"/)
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })
})
