// A process that dies between putting requeued messages back and the turn the put-back woke: the
// next process on the session owes that wake (core's recovery counts a put-back as parked).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, createUserMessage, messageText, type Agent, type InboxSplice, type Tool, type SessionEvent, type UserMessage } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import rateLimit, { type Options } from './index.js'

const OPTIONS: Options = { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }
const SESSION = 'requeued'
const dirs: string[] = []
const agents: Agent[] = []

afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close()
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-rate-limit-'))
  dirs.push(dir)
  return dir
}

/** The agent's clock, moved by the test alone (see rate-limit.test.ts). */
function testClock(): { now: () => number; advance(ms: number): void } {
  let time = 1_764_000_000_000
  return { now: () => time, advance: (ms) => void (time += ms) }
}

const from = (userId: string, text: string) => createUserMessage(text, { source: { kind: 'user', userId } })

const stepped = (events: readonly SessionEvent[]) =>
  events.filter((event) => event.type === 'user/message').map((event) => messageText(event.data as UserMessage))

/** The splice that puts a requeued message back: inserted after the message's `rate-limit/requeued`. */
function isPutBack(events: readonly SessionEvent[], index: number): boolean {
  const event = events[index]!
  if (event.type !== 'agent/inbox/spliced') return false
  const ids = (event.data as { inserted: readonly UserMessage[] }).inserted.map((message) => message.id)
  return events.slice(0, index).some((earlier) =>
    earlier.type === 'rate-limit/requeued' && (earlier.data as { messages: readonly UserMessage[] }).messages.some((message) => ids.includes(message.id)))
}

/**
 * A real agent with the plugin on a JSONL store: 'one' runs, 'two' is rejected and requeued, put
 * back when due and run by the turn the put-back woke. `observe` sees every event as it is logged.
 */
async function runToTheWokenTurn(dir: string, { observe = () => {}, afterwards = () => {} }: {
  observe?: (event: SessionEvent, agent: Agent) => void
  /** Run once the woken turn ended and the agent is idle, before it closes. */
  afterwards?: (agent: Agent) => void
} = {}) {
  const clock = testClock()
  const agent = await createAgent({ model: scripted({ responses: [] }), store: jsonlStore({ dir }), sessionId: SESSION, now: clock.now, plugins: [[rateLimit, OPTIONS]] })
  agents.push(agent)
  agent.hooks.event.tap('test', (event) => observe(event, agent))
  agent.followup('one')
  await agent.whenIdle()
  agent.followup('two')
  await agent.whenIdle()
  expect(agent.session.events.some((event) => event.type === 'rate-limit/requeued')).toBe(true)
  clock.advance(OPTIONS.windowMs!) // due now: the timer puts 'two' back and wakes the agent
  const events = agent.session.events
  await vi.waitFor(() => {
    const putBack = events.findIndex((_, index) => isPutBack(events, index))
    expect(putBack).toBeGreaterThan(0)
    expect(events.slice(putBack).map((event) => event.type)).toContain('turn/end')
  }, { timeout: 10_000 })
  await agent.whenIdle()
  afterwards(agent)
  await agent.close()
  return clock
}

/** Writes `dir`'s session file, cut after its first `keep` events, as the only file of a new store folder. */
async function cutLog(dir: string, keep: (events: readonly SessionEvent[]) => number): Promise<string> {
  const lines = (await readFile(join(dir, `${SESSION}.jsonl`), 'utf8')).split('\n').filter(Boolean)
  const events = lines.slice(1).map((line) => JSON.parse(line) as SessionEvent)
  const cut = await tempDir()
  await writeFile(join(cut, `${SESSION}.jsonl`), lines.slice(0, 1 + keep(events)).join('\n') + '\n')
  return cut
}

/** Opens the session as the host does (packages/host/src/sessions.ts): a wake when core's recovery says one is owed. */
async function reopen(dir: string, clock: { now: () => number }, options: Options = OPTIONS) {
  const model = scripted({ responses: [] })
  const agent = await createAgent({ model, store: jsonlStore({ dir }), sessionId: SESSION, now: clock.now, plugins: [[rateLimit, options]] })
  agents.push(agent)
  const { recovery } = agent
  if (recovery.turn !== undefined || recovery.requeued.length > 0 || (recovery.waiting?.length ?? 0) > 0) agent.wake()
  return { agent, model }
}

it('a put-back whose woken turn never reached the log is woken for by the next process, and runs once', async () => {
  const dir = await tempDir()
  const clock = await runToTheWokenTurn(dir)
  // The process died once the put-back was durable, before the woken turn's turn/start was.
  const cut = await cutLog(dir, (events) => events.findIndex((_, index) => isPutBack(events, index)) + 1)
  const { agent, model } = await reopen(cut, clock)
  expect(agent.recovery.waiting).toBeUndefined() // core counts a put-back as parked: the wake is the plugin's
  expect(agent.status).toBe('running')
  await vi.waitFor(() => expect(stepped(agent.session.events)).toEqual(['one', 'two']), { timeout: 10_000 })
  await agent.whenIdle()
  expect(model.requests).toBe(1)
  expect(agent.inbox.hasPending).toBe(false)
})

it('a turn that started after the put-back means nothing is owed: input parked after it stays parked', async () => {
  const dir = await tempDir()
  // Queued without a wake once the woken turn ran 'two': parked until someone wakes the agent.
  const clock = await runToTheWokenTurn(dir, { afterwards: (agent) => agent.inject('later') })
  const { agent, model } = await reopen(dir, clock)
  expect(agent.status).toBe('idle')
  expect(agent.inbox.nextStep.map((message) => messageText(message))).toEqual(['later'])
  expect(model.requests).toBe(0)
})

it('a user’s Stop (keepInbox) of the woken turn is respected: the put-back message stays parked', async () => {
  const dir = await tempDir()
  let stopped = false
  const clock = await runToTheWokenTurn(dir, {
    observe: (event, agent) => {
      // The Stop lands as the woken turn opens, before it claims 'two': the turn ends aborted, 'two' parked.
      if (event.type !== 'turn/start' || stopped || !agent.session.events.some((_, index) => isPutBack(agent.session.events, index))) return
      stopped = true
      agent.cancel({ keepInbox: true })
    },
  })
  const { agent, model } = await reopen(dir, clock)
  expect(stepped(agent.session.events)).toEqual(['one'])
  expect(agent.inbox.nextTurn.map((message) => messageText(message))).toEqual(['two'])
  expect(agent.status).toBe('idle')
  expect(model.requests).toBe(0)
})

it('a user’s Stop (keepInbox) of the turn that was running at the put-back is respected: the message stays parked', async () => {
  const dir = await tempDir()
  const clock = testClock()
  const options: Options = { ...OPTIONS, per: 'source' }
  let seen!: () => void
  const putBack = new Promise<void>((resolve) => (seen = resolve))
  let agent!: Agent
  // Bob's turn is in this tool when Ada's requeued message comes back; the user stops it then.
  const holdUntilPutBack: Tool = {
    name: 'hold', description: 'waits', parameters: { type: 'object' },
    execute: async () => {
      await putBack // resolved as the put-back is logged: its wake (a no-op, the turn runs) is done
      agent.cancel({ keepInbox: true })
      return 'stopped'
    },
  }
  const model = scripted({ responses: [{ text: 'hello Ada' }, { toolCalls: [{ name: 'hold' }] }] })
  agent = await createAgent({ model, store: jsonlStore({ dir }), sessionId: SESSION, now: clock.now, tools: [holdUntilPutBack], plugins: [[rateLimit, options]] })
  agents.push(agent)
  agent.followup(from('ada', 'one'))
  await agent.whenIdle()
  const two = agent.followup(from('ada', 'two')) // rejected, requeued
  await agent.whenIdle()
  agent.hooks.event.tap('test', (event) => {
    if (event.type === 'agent/inbox/spliced' && (event.data as InboxSplice).inserted.some((message) => message.id === two.id)) seen()
  })
  agent.followup(from('bob', 'hi'))
  clock.advance(OPTIONS.windowMs!)
  await putBack
  await agent.whenIdle()
  // Put back while Bob's turn ran; that turn ended aborted, and no turn started after the put-back.
  const events = agent.session.events
  const after = events.slice(events.findIndex((_, index) => isPutBack(events, index))).map((event) => event.type)
  expect(after.filter((type) => type.startsWith('turn/'))).toEqual(['turn/end'])
  expect(events.at(-1)?.data).toMatchObject({ reason: { kind: 'aborted', reason: 'canceled' } })
  await agent.close()
  const reopened = await reopen(dir, clock, options)
  expect(reopened.agent.inbox.nextTurn.map((message) => messageText(message))).toEqual(['two'])
  expect(reopened.agent.status).toBe('idle')
})
