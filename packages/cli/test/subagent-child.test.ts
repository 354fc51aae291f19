import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { createAgent, LOG_FORMAT_VERSION, type ModelRequest, type SessionEvent } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { bosun, finished, it, readEvents, requireBuild, start, waitFor, writeProject } from './helpers.js'
import { Keys, runInPty } from './pty.js'

beforeAll(requireBuild)

const RESEARCHER_SYSTEM = 'You research; report facts.'

/**
 * The profile's model in the CLI's config: it answers with the request's system prompt and the
 * first line of the last user message, so a test sees which profile built the agent that answered.
 */
const ECHO_SYSTEM_ADAPTER = `export default {
  kind: 'bosun-adapter',
  name: 'echo-system',
  create: () => ({
    name: 'echo-system',
    async *stream(request) {
      const last = [...request.messages].reverse().find((m) => m.role === 'user')
      const heard = last ? last.content.map((b) => b.text ?? '').join('').split('\\n')[0] : ''
      yield { type: 'text-delta', text: 'system: ' + request.system + ' | heard: ' + heard }
      yield { type: 'finish', reason: 'stop' }
    },
  }),
}
`

/**
 * The CLI's config. The researcher profile answers with its system prompt. The top level takes a
 * while over its answer (a turn the CLI must let finish), or, without the plugin, echoes the user.
 */
const PARENT_ANSWER = 'noted, thanks'
const config = (withSubagents = true, parentDelayMs = 25) => ({
  system: 'You lead.',
  ...(withSubagents ? { model: { adapter: 'scripted', options: { responses: [{ text: PARENT_ANSWER, chunkSize: 2, delayMs: parentDelayMs }] } } } : {}),
  ...(withSubagents ? { plugins: [['subagents', { agents: { researcher: { system: RESEARCHER_SYSTEM, model: { adapter: './echo-system.mjs' } } } }]] } : {}),
})

const firstUserText = (request: ModelRequest) => {
  const first = request.messages.find((m) => m.role === 'user')
  return first && first.role === 'user' ? first.content.map((b) => ('text' in b ? b.text : '')).join('') : ''
}
const ofType = (events: readonly SessionEvent[], type: string) => events.filter((e) => e.type === type)
const childIds = (events: readonly SessionEvent[]) => ofType(events, 'subagent/spawned').map((e) => (e.data as { childId: string }).childId)
const settledEpochs = (events: readonly SessionEvent[], childId: string) =>
  ofType(events, 'subagent/settled').filter((e) => (e.data as { childId: string }).childId === childId).map((e) => (e.data as { epoch: number }).epoch)

/**
 * A parent session `root` that spawned a background researcher (`child`), which spawned a
 * background researcher of its own (`grandchild`), all settled — written in process by the real
 * plugin on the JSONL store the CLI reads. Each conversation is scripted by its first message.
 */
async function spawnedTree(dir: string, mode: 'background' | 'foreground' = 'background'): Promise<{ child: string; grandchild: string }> {
  const script: Record<string, ScriptedResponse[]> = {
    plan: [{ toolCalls: [{ name: 'spawn_agent', id: 's1', args: { task: 'dig', agent: 'researcher', mode } }] }, { text: 'waiting' }],
    dig: [{ toolCalls: [{ name: 'spawn_agent', id: 'd1', args: { task: 'deeper', agent: 'researcher', mode: 'background' } }] }, { text: 'digging' }],
    deeper: [{ text: 'found it' }],
  }
  const route = (request: ModelRequest): ScriptedResponse => {
    const key = firstUserText(request)
    return script[key]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: `done: ${key}` }
  }
  const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
  const root = await createAgent({
    model: scripted({ responses: Array.from({ length: 100 }, () => route) }), store, sessionId: 'root',
    plugins: [[subagents, { agents: { researcher: { system: RESEARCHER_SYSTEM } } }]],
  })
  root.followup('plan')
  await waitFor(() => ofType(root.session.events, 'subagent/settled').length === 1 && root.status === 'idle' && !root.inbox.hasPending, 'the child to settle')
  const [child] = childIds(root.session.events) as [string]
  await root.close()
  const [grandchild] = childIds((await store.read!(child))!.events) as [string]
  await store.close()
  return { child, grandchild }
}

const readIfThere = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '')

/** Every turn of the log ended, none by crash repair: the log needs no recovery. */
async function expectIntact(dir: string, id: string, expect: (value: unknown) => any): Promise<SessionEvent[]> {
  const events = await readEvents(dir, id)
  expect(ofType(events, 'turn/end').length).toBe(ofType(events, 'turn/start').length)
  expect(ofType(events, 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)).not.toContain('interrupted')
  return events
}

describe.concurrent('a subagent child in the CLI is opened through its parent', () => {
  it('bosun run --session <child>: the profile answers, the parent settles the new epoch and runs its turn, both logs are intact', async ({ dir, expect }) => {
    const { child } = await spawnedTree(dir)
    await writeProject(dir, config(), { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER })
    const run = await bosun(['run', '--session', child, 'what else?'], { cwd: dir })
    expect(run.stderr).toContain(`session ${child} is a subagent child: opened through its parent root, with its profile researcher; the parent hears of each turn settled here\n`)
    expect(run.code).toBe(0)
    expect(run.stdout).toBe(`system: ${RESEARCHER_SYSTEM} | heard: what else?\n`)
    expect(run.stderr).toContain('waiting for the parent session root: it is running a turn on what this session settled · Ctrl+C stops waiting (its turn is aborted) · `bosun log root` shows it\n')

    const parent = await expectIntact(dir, 'root', expect)
    expect(settledEpochs(parent, child)).toEqual([1, 2])
    // The parent took the settlement in a turn of its own, which ended before the CLI closed it.
    const settled = parent.findLastIndex((e) => e.type === 'subagent/settled')
    const after = parent.slice(settled).filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)
    expect(after).toEqual(['completed'])
    expect(JSON.stringify(ofType(parent, 'assistant/message').at(-1)!.data)).toContain(PARENT_ANSWER)
    expect(ofType(parent, 'user/message').map((e) => (e.data as { id: string }).id)).toContain(`settle:${child}:2`)
    const own = await expectIntact(dir, child, expect)
    expect(ofType(own, 'turn/start')).toHaveLength(3)
  })

  it('Ctrl+C while the CLI waits for the parent: the parent\'s turn ends aborted as it closes, its log keeps the settlement, both logs are whole', async ({ dir, expect }) => {
    const { child } = await spawnedTree(dir)
    // A parent that would take minutes over its answer.
    await writeProject(dir, config(true, 60_000), { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER })
    const run = start(['run', '--session', child, 'quick one'], { cwd: dir })
    await waitFor(() => run.output.stderr.includes('waiting for the parent session root'), 'the CLI to wait for the parent')
    run.kill('SIGINT')
    const result = await finished(run)
    expect(result.stderr).toContain("stopped waiting: the parent's turn is aborted as it closes\n")
    expect(result.code).toBe(0) // the child's turn completed
    const parent = await expectIntact(dir, 'root', expect)
    expect(settledEpochs(parent, child)).toEqual([1, 2])
    const last = ofType(parent, 'turn/end').at(-1)!.data as { reason: { kind: string; reason?: string } }
    expect(last.reason).toEqual({ kind: 'aborted', reason: 'closed' })
    await expectIntact(dir, child, expect)
  })

  it('--json: stdout holds only the child\'s events (the note is on stderr); a grandchild opens through both parents and each level settles once', async ({ dir, expect }) => {
    const { child, grandchild } = await spawnedTree(dir)
    await writeProject(dir, config(), { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER })
    const run = await bosun(['run', '--json', '--session', grandchild, 'and then?'], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(`session ${grandchild} is a subagent child: opened through its parents root → ${child}, with its profile researcher;`)
    const events = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    const answer = ofType(events, 'assistant/message').map((e) => JSON.stringify(e.data))
    expect(answer).toHaveLength(1)
    expect(answer[0]).toContain(`system: ${RESEARCHER_SYSTEM} | heard: and then?`)
    // The grandchild's turn settled into the child, whose turn on it settled into the root.
    expect(settledEpochs(await expectIntact(dir, child, expect), grandchild)).toEqual([1, 2])
    expect(settledEpochs(await expectIntact(dir, 'root', expect), child)).toEqual([1, 2])
    await expectIntact(dir, grandchild, expect)
  })

  it('bosun resume <child> with piped input and bosun chat --session <child> in a terminal: every turn settles in the parent', async ({ dir, expect }) => {
    const { child } = await spawnedTree(dir)
    await writeProject(dir, config(), { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER })
    const piped = await bosun(['resume', child], { cwd: dir, input: 'first question\n' })
    expect(piped.code).toBe(0)
    expect(piped.stdout).toContain(`system: ${RESEARCHER_SYSTEM} | heard: first question`)
    expect(piped.stderr).toContain(`session ${child} is a subagent child: opened through its parent root`)
    expect(settledEpochs(await expectIntact(dir, 'root', expect), child)).toEqual([1, 2])

    const chat = await runInPty(['chat', '--session', child], [
      { expect: 'opened through its parent root' },
      { send: `second question${Keys.enter}` },
      { expect: `heard: second question` },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(chat.error).toBeNull()
    expect(chat.exit_code).toBe(0)
    expect(settledEpochs(await expectIntact(dir, 'root', expect), child)).toEqual([1, 2, 3])
    await expectIntact(dir, child, expect)
  })

  it('a one-shot child its parent closed once it settled is opened again through the parent by the next message', async ({ dir, expect }) => {
    const { child } = await spawnedTree(dir, 'foreground')
    await writeProject(dir, config(), { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER })
    const closed = 'its parent closed this one-shot child once it settled'
    const chat = await runInPty(['chat', '--session', child], [
      { expect: 'opened through its parent root' },
      { send: `one${Keys.enter}` },
      { expect: `${closed}` },
      { send: `two${Keys.enter}` },
      { expect: `heard: two.*${closed}` },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir })
    expect(chat.error).toBeNull()
    expect(chat.exit_code).toBe(0)
    expect(chat.screen).toContain(`system: ${RESEARCHER_SYSTEM} | heard: one`)
    expect(chat.screen).toContain(`system: ${RESEARCHER_SYSTEM} | heard: two`)
    expect(chat.screen).not.toContain('error')
    expect(settledEpochs(await expectIntact(dir, 'root', expect), child)).toEqual([1, 2, 3])
    // Two turns from the spawn (its task, its grandchild's settlement), then one per message, each its own epoch.
    const own = await expectIntact(dir, child, expect)
    expect(ofType(own, 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['completed', 'completed', 'completed', 'completed'])
  })

  // Piped input that ends on a line for a one-shot child its parent closed: the chat waits for the
  // child to open again (here a plugin's setup that holds until the test releases it). Before, a
  // second SIGTERM did not stop that wait; and once the child opened after a SIGTERM, the line ran
  // a whole turn, which the chat waited for.
  it.for([
    ['a second SIGTERM stops waiting', 'again'],
    ['the child opens after a SIGTERM: the line stays queued, no turn runs on it', 'release'],
  ] as const)('piped input, SIGTERM while a one-shot child opens again: %s', async ([, then], { dir, expect }) => {
    const { child } = await spawnedTree(dir, 'foreground')
    // A plugin of the config (the child gets it too) whose setup holds once the file 'hold' exists,
    // until 'release' does, and which notes each SIGTERM in 'terms' (a line each) for the test.
    const HOLD_PLUGIN = `import { appendFileSync, existsSync, watch, writeFileSync } from 'node:fs'
export default {
  kind: 'bosun-plugin',
  name: 'hold',
  async setup() {
    if (!existsSync('hold')) return
    process.on('SIGTERM', () => appendFileSync('terms', 'SIGTERM\\n'))
    writeFileSync('holding', '')
    await new Promise((resolve) => {
      const watcher = watch('.', () => { if (existsSync('release')) { watcher.close(); resolve() } })
    })
  },
}
`
    const base = config()
    await writeProject(dir, { ...base, plugins: [...base.plugins!, './hold.mjs'] }, { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER, 'hold.mjs': HOLD_PLUGIN })
    const chat = start(['chat', '--session', child], { cwd: dir, input: 'one\n', keepInputOpen: true })
    await waitFor(() => chat.output.stdout.includes('its parent closed this one-shot child once it settled'), 'the parent to close the child')
    await writeProject(dir, undefined, { hold: '' })
    chat.stdin!.end('two\n')
    await waitFor(() => existsSync(join(dir, 'holding')), 'the child to be opening again')
    chat.kill('SIGTERM')
    await waitFor(() => readIfThere(join(dir, 'terms')).split('\n').length > 1, 'the first SIGTERM to arrive')
    if (then === 'again') chat.kill('SIGTERM')
    else await writeProject(dir, undefined, { release: '' })
    const result = await finished(chat)
    expect(result.signal).toBe(null)
    expect(result.code).toBe(143)
    // The child's turns on its task, its grandchild's settlement and "one"; none on "two".
    const own = await expectIntact(dir, child, expect)
    expect(ofType(own, 'turn/start')).toHaveLength(3)
    if (then === 'again') {
      expect(result.stderr).toContain('aborted: stopped waiting for the turn to end')
      // (The parent's turn on the settlement of "one" may still run: stopping the wait leaves it open.)
      expect(JSON.stringify(own)).not.toContain('two')
    } else {
      expect(result.stdout).toContain('saved')
      // Queued in its inbox (for the next open), never claimed by a turn.
      expect(ofType(own, 'agent/inbox/spliced').filter((e) => JSON.stringify(e.data).includes('"two"'))).toHaveLength(1)
      expect(ofType(own, 'user/message').filter((e) => JSON.stringify(e.data).includes('"two"'))).toHaveLength(0)
      await expectIntact(dir, 'root', expect)
    }
  })

  it('a child whose parent cannot open it runs on the config\'s agent, with a one-line note saying so', async ({ dir, expect }) => {
    const { child } = await spawnedTree(dir)
    await writeProject(dir, config(false), { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER })
    const run = await bosun(['run', '--session', child, 'plain'], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(`note: session ${child} is a subagent child of root, which does not open it (its config has no subagents plugin, or its log does not hold this child): it runs on this config's agent, without the profile it was spawned with, and its parent does not hear of it\n`)
    expect(run.stdout).toBe('echo: plain\n') // the top-level scripted model echoes
    expect(settledEpochs(await expectIntact(dir, 'root', expect), child)).toEqual([1])
  })

  it('a child whose parent another process holds is refused as locked, not built without its profile', async ({ dir, expect }) => {
    const { child } = await spawnedTree(dir)
    await writeProject(dir, config(), { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER })
    const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
    const parent = await createAgent({ model: scripted(), store, sessionId: 'root', plugins: [[subagents, { agents: { researcher: { system: RESEARCHER_SYSTEM } } }]] })
    try {
      const run = await bosun(['run', '--session', child, 'sneak in'], { cwd: dir })
      expect(run.code).not.toBe(0)
      expect(run.stderr).toContain(`Session "${child}" is a subagent child whose parent "root" is open in another process`)
      expect(run.stdout).toBe('')
    } finally {
      await parent.close()
      await store.close()
    }
    expect(ofType(await expectIntact(dir, child, expect), 'turn/start')).toHaveLength(2)
  })

  it('headers whose parents name each other do not loop: the session runs on the config\'s agent', async ({ dir, expect }) => {
    const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
    const delegation = (parentSessionId: string) => ({ parentSessionId, callId: 'c', depth: 1, mode: 'continuable' as const })
    for (const header of [
      { id: 'cycle-a', version: LOG_FORMAT_VERSION, createdAt: 1, delegation: delegation('cycle-b') },
      { id: 'cycle-b', version: LOG_FORMAT_VERSION, createdAt: 2, delegation: delegation('cycle-a') },
      { id: 'orphan', version: LOG_FORMAT_VERSION, createdAt: 3, delegation: delegation('gone\u001b]0;pwned\u0007') },
    ]) await (await store.create(header)).writer.close()
    await store.close()
    await writeProject(dir, config(), { 'echo-system.mjs': ECHO_SYSTEM_ADAPTER })
    const [cycle, orphan] = await Promise.all([
      bosun(['run', '--session', 'cycle-a', 'round'], { cwd: dir }),
      bosun(['run', '--session', 'orphan', 'alone'], { cwd: dir }),
    ])
    expect(cycle.code).toBe(0)
    expect(cycle.stdout).toBe(`${PARENT_ANSWER}\n`)
    expect(cycle.stderr).toContain('note: session cycle-b is a subagent child of cycle-a, which is one of its own descendants (the headers name each other)')
    expect(cycle.stderr).toContain('note: session cycle-a is a subagent child of cycle-b, which does not open it')
    expect(orphan.code).toBe(0)
    expect(orphan.stdout).toBe(`${PARENT_ANSWER}\n`)
    expect(orphan.stderr).toContain('note: session orphan is a subagent child of gone␛]0;pwned␇, which is not in this store')
    expect(orphan.stderr).not.toContain('\u001b')
    // The missing parent was not created.
    expect((await bosun(['sessions', 'list'], { cwd: dir })).stdout).not.toContain('gone')
  })
})
