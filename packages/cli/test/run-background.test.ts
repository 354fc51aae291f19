import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { finished, it, readEvents, requireBuild, start, waitFor, writeProject, type Started } from './helpers.js'

beforeAll(requireBuild)

/** A tool that returns once a file named `gate` exists in the cwd; an abort ends its wait (the child is closed). */
const GATE_TOOL = `import { existsSync, watch } from 'node:fs'
export default {
  name: 'gate',
  description: 'Waits for the test.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async execute(args, { signal }) {
    // Woken by the folder's change events (no polling); checked again once watched, so a gate made
    // in between is not missed.
    await new Promise((resolve) => {
      let watcher
      const done = () => { watcher?.close(); signal.removeEventListener('abort', done); resolve() }
      signal.addEventListener('abort', done, { once: true })
      watcher = watch('.', () => { if (existsSync('gate')) done() })
      if (existsSync('gate') || signal.aborted) done()
    })
    return signal.aborted ? 'aborted' : 'open'
  },
}
`

/**
 * The lead spawns a background researcher and ends its turn; the researcher works until the test
 * opens the gate, then answers; the lead answers the settlement in a turn of its own.
 */
const config = {
  model: { adapter: 'scripted', options: { responses: [
    { toolCalls: [{ name: 'spawn_agent', id: 's1', args: { task: 'dig', agent: 'researcher', mode: 'background' } }] },
    { text: 'started a researcher' },
    { text: 'the researcher found gold' },
  ] } },
  tools: ['./gate.mjs'],
  plugins: [['subagents', { agents: { researcher: { system: 'You research.', model: { adapter: 'scripted', options: { responses: [
    { toolCalls: [{ name: 'gate', args: {} }] },
    { text: 'gold' },
  ] } } } } }]],
}

const ofType = (events: readonly SessionEvent[], type: string) => events.filter((e) => e.type === type)
const endKinds = (events: readonly SessionEvent[]) => ofType(events, 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)
const childOf = (events: readonly SessionEvent[]) => (ofType(events, 'subagent/spawned')[0]!.data as { childId: string }).childId

/** Until the CLI says it waits for the background child, or has exited without waiting. */
const waiting = (run: Started) =>
  waitFor(() => run.output.stderr.includes('waiting for background agent') || run.exitCode !== null || run.signalCode !== null, 'the CLI to wait for the child or exit')

/**
 * Each agent's close waits for this teardown, which writes a file 'closing' as it starts and ends
 * only once a file 'release' exists; each SIGTERM the process gets adds a line to 'terms'.
 */
const STUCK_TEARDOWN = `import { appendFileSync, existsSync, watch, writeFileSync } from 'node:fs'
export default {
  kind: 'bosun-plugin',
  name: 'stuck-teardown',
  setup({ onClose }) {
    process.on('SIGTERM', () => appendFileSync('terms', 'SIGTERM\\n'))
    onClose(() => new Promise((resolve) => {
      const watcher = watch('.', () => { if (existsSync('release')) { watcher.close(); resolve() } })
      writeFileSync('closing', '')
      if (existsSync('release')) { watcher.close(); resolve() }
    }))
  },
}
`

describe.concurrent('bosun run with a background subagent', () => {
  it('waits for the background child: its answer reaches the session, which answers it in a turn printed on stdout', async ({ dir, expect }) => {
    await writeProject(dir, config, { 'gate.mjs': GATE_TOOL })
    const run = start(['run', '--session', 'lead', 'plan'], { cwd: dir })
    await waiting(run)
    expect(run.output.stderr).toContain('waiting for background agent ')
    await writeProject(dir, undefined, { gate: '' })
    const result = await finished(run)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('started a researcher\nthe researcher found gold\n')

    const lead = await readEvents(dir, 'lead')
    const child = childOf(lead)
    expect(result.stderr).toContain(`waiting for background agent ${child}: its answer goes to session lead · Ctrl+C stops waiting (it is aborted) · \`bosun log ${child}\` shows it\n`)
    expect(result.stderr).not.toContain('stopped background agent')
    expect(endKinds(lead)).toEqual(['completed', 'completed'])
    expect(ofType(lead, 'subagent/settled').map((e) => (e.data as { reason: string }).reason)).toEqual(['completed'])
    expect(endKinds(await readEvents(dir, child))).toEqual(['completed'])
  })

  // SIGTERM: before, its listener was gone once the turn ended, and the signal killed the process
  // as it waited, the child's turn left open in its log.
  it.for([
    ['SIGINT', 0], // the prompt's turn completed
    ['SIGTERM', 143],
  ] as const)('%s while it waits: the child is aborted as the session closes, closed in its log, and stderr names it; exit %i', async ([signal, code], { dir, expect }) => {
    await writeProject(dir, config, { 'gate.mjs': GATE_TOOL })
    const run = start(['run', '--session', 'lead', 'plan'], { cwd: dir })
    await waiting(run)
    expect(run.output.stderr).toContain('waiting for background agent ')
    run.kill(signal)
    const result = await finished(run)
    expect(result.signal).toBe(null)
    expect(result.code).toBe(code)
    expect(result.stdout).toBe('started a researcher\n')
    const lead = await readEvents(dir, 'lead')
    const child = childOf(lead)
    expect(result.stderr).toContain('stopped waiting: what still runs is aborted as the session closes\n')
    expect(result.stderr).toContain(`stopped background agent ${child}: it was still working, and its turn ends aborted as its parent closes (its parent gets that settlement when it is next opened) · \`bosun log ${child}\` shows it\n`)
    expect(endKinds(lead)).toEqual(['completed'])
    const childEvents = await readEvents(dir, child)
    expect(ofType(childEvents, 'turn/start')).toHaveLength(1)
    expect(endKinds(childEvents)).toEqual(['aborted'])
  })

  it('a second SIGTERM stops waiting for the session to close (a plugin teardown that does not end): exit 143', async ({ dir, expect }) => {
    await writeProject(dir, { ...config, plugins: [...config.plugins, './stuck-teardown.mjs'] }, { 'gate.mjs': GATE_TOOL, 'stuck-teardown.mjs': STUCK_TEARDOWN })
    const run = start(['run', '--session', 'lead', 'plan'], { cwd: dir })
    await waiting(run)
    run.kill('SIGTERM')
    await waitFor(() => run.output.stderr.includes('stopped waiting: what still runs is aborted as the session closes'), 'the first SIGTERM to stop the wait')
    run.kill('SIGTERM')
    const result = await finished(run)
    expect(result.signal).toBe(null)
    expect(result.code).toBe(143)
    expect(result.stderr).toContain('aborted: stopped waiting for the session to close\n')
  })

  it('leaving bosun chat does not wait: a background child still working is aborted and named on stderr', async ({ dir, expect }) => {
    await writeProject(dir, config, { 'gate.mjs': GATE_TOOL })
    const result = await finished(start(['chat', '--session', 'lead'], { cwd: dir, input: 'plan\n' }))
    expect(result.code).toBe(0)
    const lead = await readEvents(dir, 'lead')
    const child = childOf(lead)
    expect(result.stderr).toContain(`stopped background agent ${child}: it was still working`)
    expect(endKinds(lead)).toEqual(['completed'])
    expect(endKinds(await readEvents(dir, child))).toEqual(['aborted'])
  })

  // A supervisor's SIGTERM (timeout, docker stop) cannot know of a Ctrl+C before it: it counted as
  // the second signal, and the run stopped waiting for the session's close it asked for.
  it('Ctrl+C, then a SIGTERM while the session closes: the close is waited for, exit 143; a second SIGTERM stops waiting', async ({ dir, expect }) => {
    const slow = { model: { adapter: 'scripted', options: { responses: [{ text: 'Zq slow answer that takes a good while', chunkSize: 2, delayMs: 1000 }] } }, plugins: ['./stuck-teardown.mjs'] }
    await writeProject(dir, slow, { 'stuck-teardown.mjs': STUCK_TEARDOWN })
    /** A run Ctrl+C stopped mid-answer, sent a SIGTERM once its session closes (the teardown holds it). */
    const stopping = async (session: string) => {
      for (const file of ['closing', 'terms', 'release']) await rm(join(dir, file), { force: true })
      const run = start(['run', '--session', session, 'go'], { cwd: dir })
      await waitFor(() => run.output.stdout.includes('Zq'), 'the first chunk of the answer')
      run.kill('SIGINT')
      await waitFor(() => existsSync(join(dir, 'closing')), 'the session to close')
      run.kill('SIGTERM')
      await waitFor(() => existsSync(join(dir, 'terms')), 'the SIGTERM to arrive')
      return run
    }
    const run = await stopping('slow')
    await writeProject(dir, undefined, { release: '' })
    const result = await finished(run)
    expect(result.signal).toBe(null)
    expect(result.code).toBe(143)
    expect(result.stderr).not.toContain('stopped waiting')
    expect(result.stderr).toContain('aborted (interrupted)')
    expect(endKinds(await readEvents(dir, 'slow'))).toEqual(['aborted'])

    const again = await stopping('slow-again')
    again.kill('SIGTERM')
    const stopped = await finished(again)
    expect(stopped.code).toBe(143)
    expect(stopped.stderr).toContain('aborted: stopped waiting for the session to close\n')
  })
})
