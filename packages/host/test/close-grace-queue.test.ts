// host.close({ graceMs }) while a turn runs and a follow-up waits behind it (review: shutdown
// grace). The grace let the agent run its queue turn after turn: the follow-up was claimed for a
// new turn — the claim is the commit point (seed 003) — and that turn, still open when the grace
// ended, was aborted with its input consumed. Now the running turn may finish, no new turn starts,
// and what is queued stays queued in the log for the next host.
import { createAgent, type Agent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { describe, expect, it } from 'vitest'
import { createHost, type Host } from '../src/index.js'
import { json, perTest, req, stepGate, waitFor } from './helpers.js'

const t = perTest()

/** The reasons of the session's `turn/end` events, in order. */
function turnEnds(agent: Agent): unknown[] {
  return agent.session.events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: unknown }).reason)
}

/**
 * A host on the test's store whose session `grace` has turn 1 (message `a`) held at its first step
 * by `gate`, and `b` queued (durably) behind it. `watch` sees the agent as it is built.
 */
async function heldTurnAndFollowup(gate: ReturnType<typeof stepGate>, responses: { text: string }[], watch: (agent: Agent) => void): Promise<Host> {
  const store = jsonlStore({ dir: t.dir })
  t.closing.push(store) // after the host: the closing list runs from its end
  const host = createHost({
    store,
    agentFactory: async ({ sessionId, store }) => {
      const agent = await createAgent({ model: scripted({ responses }), store, sessionId, plugins: [gate.plugin] })
      watch(agent)
      return agent
    },
  })
  t.closing.push(host) // closed by the test; again at the end (a no-op) if an assertion fails first
  expect((await req(host, 'POST', '/v1/sessions', { id: 'grace' })).status).toBe(201)
  expect((await req(host, 'POST', '/v1/sessions/grace/messages', { content: 'a', clientMessageId: 'a' })).status).toBe(202)
  await waitFor(() => gate.waiting === 1, 15_000, 'turn 1 held at its first step')
  expect((await req(host, 'POST', '/v1/sessions/grace/messages?wait=durable', { content: 'b', clientMessageId: 'b' })).status).toBe(202)
  return host
}

/** The next host on the same store: opens `grace` (as any request would) and waits for `b`'s turn to complete. */
async function nextHostRunsB(): Promise<Agent> {
  const store = jsonlStore({ dir: t.dir })
  t.closing.push(store)
  const second = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'b answered' }] }), store, sessionId }),
  })
  t.closing.push(second)
  // Read from the store, without resuming the session: b was never claimed.
  expect(await json(req(second, 'GET', '/v1/sessions/grace/messages/b'))).toMatchObject({ state: 'queued', lane: 'next-turn' })
  const { agent } = await second.sessions.use('grace')
  expect(agent.recovery.waiting).toEqual(['b'])
  await waitFor(async () => (await json(req(second, 'GET', '/v1/sessions/grace/messages/b'))).turnEnd === 'completed', 15_000, 'b run by the next host')
  return agent
}

describe('host.close({ graceMs }) with a follow-up queued behind the running turn', () => {
  it('lets the running turn finish, starts no new one, and leaves the follow-up queued for the next host', async () => {
    const gate = stepGate()
    let first: Agent | undefined
    const host = await heldTurnAndFollowup(gate, [{ text: 'a answered' }, { text: 'ran during the grace' }], (agent) => {
      first = agent
      // The host's close waits for idle once its grace has begun (session-close.ts): only then is
      // the held turn let go, so it ends inside the grace however fast or slow the machine.
      const whenIdle = agent.whenIdle.bind(agent)
      agent.whenIdle = () => {
        const idle = whenIdle()
        gate.open()
        return idle
      }
    })

    // A grace far longer than the held turn needs: the close resolves once that turn has ended.
    await host.close({ graceMs: 600_000 })
    expect(first!.session.events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
    expect(turnEnds(first!)).toEqual([{ kind: 'completed' }])
    expect(first!.inbox.nextTurn.map((m) => m.id)).toEqual(['b'])

    const next = await nextHostRunsB()
    expect(turnEnds(next)).toEqual([{ kind: 'completed' }, { kind: 'completed' }])
    const answers = next.session.events.filter((e) => e.type === 'assistant/message').map((e) => JSON.stringify(e.data))
    expect(answers).toHaveLength(2)
    expect(answers[1]).toContain('b answered')
  })

  it('a turn still running when the grace ends is aborted as a shutdown; the follow-up stays queued and runs next time', async () => {
    const gate = stepGate() // never opened: turn 1 outlasts the grace
    let first: Agent | undefined
    const host = await heldTurnAndFollowup(gate, [], (agent) => (first = agent))

    await host.close({ graceMs: 20 })
    expect(turnEnds(first!)).toEqual([{ kind: 'aborted', reason: 'shutdown' }])
    expect(first!.inbox.nextTurn.map((m) => m.id)).toEqual(['b'])

    const next = await nextHostRunsB()
    expect(turnEnds(next)).toEqual([{ kind: 'aborted', reason: 'shutdown' }, { kind: 'completed' }])
  })
})
