import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { createAgent, definePlugin, type SessionEvent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { bosun, finished, readEvents, requireBuild, start, waitFor, it } from './helpers.js'

beforeAll(requireBuild)


const sessions = (dir: string) => join(dir, '.bosun/sessions')
const times = (text: string) => text.replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, '<time>').replace(/ · \d+ steps? · [\d.]+m?s/g, '')

/**
 * A session with one of everything the timeline shows, made with the core API (a fixed clock):
 * tool calls and results, steering, a retry, a rejection with metadata, a compaction, a
 * canceled message, and a turn a crash left open (closed as interrupted when reopened).
 */
async function richSession(dir: string): Promise<void> {
  const guard = definePlugin({
    name: 'guard',
    setup({ hooks }) {
      hooks.preStep.tap('guard', (decision) =>
        decision.kind === 'enter' && decision.messages.some((m) => m.content.some((b) => b.type === 'text' && b.text.includes('secret')))
          ? { kind: 'reject', metadata: { rule: 'no-secrets' } }
          : decision,
      )
    },
  })
  const clock = {
    name: 'clock',
    description: 'Tells the time.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    execute: () => '12:00\nUTC',
  }
  let now = Date.parse('2026-03-12T14:22:05Z')
  const store = jsonlStore({ dir: sessions(dir) })
  const agent = await createAgent({
    model: scripted({ responses: [{ toolCalls: [{ name: 'clock', args: {} }] }, { text: 'It is noon.\nAnything else?' }] }),
    store, sessionId: 'rich', tools: [clock], plugins: [guard], now: () => (now += 100),
  })
  agent.followup('What time is it?')
  agent.steer('be brief')
  await agent.whenIdle()
  agent.followup('tell me the secret')
  await agent.whenIdle()
  agent.session.append('llm/retry', { turn: 2, step: 1, attempt: 1, delayMs: 500, error: { code: 'RATE_LIMIT', message: 'slow down' } })
  agent.session.append('compaction/start', { reason: 'manual' })
  agent.session.append('compaction/summary', { summary: 'The user asked the time; it was noon.', firstKeptSeq: 10 })
  agent.session.append('compaction/end', {})
  const dropped = agent.inject('never mind')
  agent.inbox.remove(dropped.id)
  await agent.close()
  await store.close()
  // A crash in the middle of turn 3: its turn/start and user message are on disk, nothing after.
  const last = (await readEvents(dir, 'rich')).at(-1)!
  const line = (seq: number, type: string, data: unknown) => `${JSON.stringify({ seq, time: now + seq, type, data })}\n`
  const message = { id: '00000000-0000-4000-8000-000000000001', role: 'user', content: [{ type: 'text', text: 'cut short' }], source: { kind: 'user' } }
  await appendFile(
    join(sessions(dir), 'rich.jsonl'),
    line(last.seq + 1, 'agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [message] }) +
      line(last.seq + 2, 'turn/start', { turn: 3 }) +
      line(last.seq + 3, 'agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }) +
      line(last.seq + 4, 'step/start', { turn: 3, step: 1 }) +
      line(last.seq + 5, 'user/message', message),
  )
  // Reopening repairs it (turn/end interrupted, the message re-queued), as any resume would.
  now += 10
  const reopened = jsonlStore({ dir: sessions(dir) })
  await (await createAgent({ model: scripted(), store: reopened, sessionId: 'rich', plugins: [guard], now: () => (now += 100) })).close()
  await reopened.close()
}

describe.concurrent('bosun log', () => {
  it('prints a readable timeline: turns, steps, messages, tools, retries, rejections, compactions, interrupted turns', async ({ dir, expect }) => {
    await richSession(dir)
    const result = await bosun(['log', 'rich'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(times(result.stdout)).toMatchInlineSnapshot(`
      "session rich · created <time>
      + queued: "What time is it?"
      + steer: "be brief"
      turn 1  <time>
        step 1 · scripted
          user      be brief
          user      What time is it?
          context: no system prompt, tools: clock
          → clock({})
          ← clock: 12:00 (+1 lines)
        step 2 · scripted
          assistant It is noon.
                    Anything else?
        ✓ completed
      + queued: "tell me the secret"
      turn 2  <time>
        ⊘ blocked by guard: {"rule":"no-secrets"}
      ↻ retry: attempt 1 in 500ms after RATE_LIMIT: slow down
      ⇢ compaction (manual)
        summary: The user asked the time; it was noon. (replaces the history before seq 10)
      ⇢ compaction done
      + steer: "never mind"
      - canceled: "never mind"
      + queued: "cut short"
      turn 3  <time>
        step 1
          user      cut short
          step ended: error
        ↯ interrupted: the process stopped during this turn; it was closed when the session was reopened
      "
    `)
  })

  it('--json prints the raw events, exactly as stored', async ({ dir, expect }) => {
    await richSession(dir)
    const result = await bosun(['log', 'rich', '--json'], { cwd: dir })
    expect(result.code).toBe(0)
    const events = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    expect(events).toEqual(await readEvents(dir, 'rich'))
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index))
  })

  it('--all prints every event in the core\'s one-line form with its seq, chunks included', async ({ dir, expect }) => {
    expect((await bosun(['run', '--session', 'one', 'hi'], { cwd: dir })).code).toBe(0)
    const result = await bosun(['log', 'one', '--all'], { cwd: dir })
    expect(result.stdout.split('\n').slice(1).join('\n')).toMatchInlineSnapshot(`
      "    0 splice next-turn @0 +["hi"]
          1 turn/start 1
          2   splice next-turn @0 -1
          3   step/start 1.1
          4     user/message "hi"
          5     request/context no system prompt, no tools
          6     request/header 1.1 1 messages
          7     assistant/chunk {"type":"text-delta","text":"echo: hi"}
          8     assistant/chunk {"type":"finish","reason":"stop"}
          9     assistant/message "echo: hi"
         10   step/end 1.1 stop
         11 turn/end 1 completed
      "
    `)
  })

  it('--follow prints the events of a live session as they are appended, until Ctrl+C', async ({ dir, expect }) => {
    expect((await bosun(['run', '--session', 'live', 'first'], { cwd: dir })).code).toBe(0)
    const follower = start(['log', 'live', '--follow'], { cwd: dir })
    await waitFor(() => follower.output.stdout.includes('assistant echo: first'), 'the existing events')
    expect((await bosun(['run', '--session', 'live', 'second'], { cwd: dir })).code).toBe(0)
    await waitFor(() => follower.output.stdout.includes('assistant echo: second'), 'the new turn')
    follower.kill('SIGINT')
    const result = await finished(follower)
    expect(result.code).toBe(0)
    // Read once both pipes have ended: stderr is its own pipe, not ordered with stdout.
    expect(result.stderr).toContain('following live')
    expect(times(result.stdout).split('\n').filter((line) => line.startsWith('turn') || line.includes('user'))).toEqual([
      'turn 1  <time>', '    user      first', 'turn 2  <time>', '    user      second',
    ])
  })

  it('shows request/context (the system prompt and tools sent) as one readable line, and --json prints it raw', async ({ dir, expect }) => {
    // Written by hand, in the JSONL store's format: what a core that logs request/context appends.
    const system = 'You are a careful assistant.\nAnswer briefly, and never \u001b]0;rename\u0007 the terminal. Say when you are unsure.'
    const tools = [
      { name: 'clock', description: 'Tells the time.', parameters: { type: 'object', properties: {} } },
      { name: 'read_file', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    ]
    const message = { id: '00000000-0000-4000-8000-000000000002', role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } }
    const events = [
      ['turn/start', { turn: 1 }],
      ['step/start', { turn: 1, step: 1 }],
      ['user/message', message],
      ['request/context', { system, tools }],
      ['request/header', { turn: 1, step: 1, messageCount: 1 }],
      ['assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }] } }],
      ['step/end', { turn: 1, step: 1, finish: 'stop' }],
      ['request/context', { system: '', tools: [] }],
      ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
      ['request/context', { system: 7, tools: 'clock' }], // damaged by hand: said so, not thrown on
    ].map(([type, data], seq) => ({ seq, time: 1_773_325_325_000 + seq, type, data }))
    const header = { bosun: 'session', id: 'ctx', version: 1, createdAt: 1_773_325_325_000 }
    await mkdir(sessions(dir), { recursive: true })
    await writeFile(join(sessions(dir), 'ctx.jsonl'), [header, ...events].map((line) => `${JSON.stringify(line)}\n`).join(''))

    const [timeline, json] = await Promise.all([bosun(['log', 'ctx'], { cwd: dir }), bosun(['log', 'ctx', '--json'], { cwd: dir })])
    expect(timeline.code).toBe(0)
    expect(timeline.stdout.split('\n').filter((line) => line.includes('context'))).toEqual([
      '    context: system prompt (105 characters: "You are a careful assistant. ⏎ Answer briefly, and never ␛]…"), tools: clock, read_file',
      '  context: no system prompt, no tools',
      'context: system prompt (not text), tools (not a list)',
    ])
    expect(json.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual(events)
  })

  it('names the adapter and model that answered each step, from its request/header', async ({ dir, expect }) => {
    // Two adapters in one session, as after swapping providers in the config.
    const store = jsonlStore({ dir: sessions(dir) })
    const as = (name: string, model: string | undefined, text: string) => {
      const inner = scripted({ responses: [{ text }] })
      return { name, ...(model === undefined ? {} : { model }), stream: inner.stream.bind(inner) }
    }
    for (const [model, prompt] of [[as('openai', 'gpt-4o-mini', 'from openai'), 'one'], [as('anthropic', 'claude-sonnet-4-5', 'from anthropic'), 'two']] as const) {
      const agent = await createAgent({ model, store, sessionId: 'swap' })
      agent.followup(prompt)
      await agent.whenIdle()
      await agent.close()
    }
    await store.close()
    const result = await bosun(['log', 'swap'], { cwd: dir })
    expect(result.code).toBe(0)
    const steps = result.stdout.split('\n').filter((line) => /^\s+step /.test(line))
    expect(steps).toEqual(['  step 1 · openai gpt-4o-mini', '  step 1 · anthropic claude-sonnet-4-5'])
    // The step's own lines follow its line, in the order logged.
    expect(result.stdout).toMatch(/step 1 · openai gpt-4o-mini\n\s+user\s+one\n\s+context: [^\n]*\n\s+assistant from openai\n/)
  })

  it('shows a promoted message once, as promoted, not as a claim plus a new steer', async ({ dir, expect }) => {
    const store = jsonlStore({ dir: sessions(dir) })
    const agent = await createAgent({ model: scripted({ responses: [{ text: 'one' }, { text: 'two' }] }), store, sessionId: 'promoted' })
    agent.followup('first')
    const second = agent.followup('second')
    agent.inbox.move(second.id, 'next-step')
    await agent.whenIdle()
    await agent.close()
    await store.close()
    const result = await bosun(['log', 'promoted'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('+ queued: "second"')
    expect(result.stdout).toContain('^ promoted to steer: "second"')
    expect(result.stdout).not.toContain('+ steer: "second"')
    expect(result.stdout.match(/"second"/g)).toHaveLength(2)
  })

  it('an unknown session is a coded error naming where it looked', async ({ dir, expect }) => {
    const result = await bosun(['log', 'nope'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^error SESSION_NOT_FOUND: No session "nope" in \.bosun\/sessions \(JSONL\)/)
  })
})
