import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { foldConsumedWork } from '../inbox/consumed-work.js'
import { definePlugin } from '../plugin.js'
import { createUserMessage } from '../session/messages.js'
import { LOG_FORMAT_VERSION, type SessionEvent } from '../session/events.js'
import { gate, msg, sleep, timeline } from '../testing/harness.js'
import { preStepThatNeverReturns } from '../testing/hold-steps.js'
import type { Tool } from '../tools/types.js'
import type { ModelAdapter } from '../model.js'
import { forkSession } from './fork.js'
import { memoryStore } from './memory.js'
import { SHUTDOWN_ABORT_REASON, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from './repair.js'

/** The memory store writes synchronously: its state at any moment is what a crash would leave. */
async function crashWhile(setup: Parameters<typeof createAgent>[0], act: (agent: Awaited<ReturnType<typeof createAgent>>) => Promise<void>) {
  const store = memoryStore()
  const dying = await createAgent({ ...setup, store, sessionId: 'crash' })
  await act(dying)
  // `dying` is abandoned here, mid-turn, as a killed process would be.
  return { store, reopen: (extra: Partial<Parameters<typeof createAgent>[0]> = {}) => createAgent({ model: scripted(), ...extra, store, sessionId: 'crash' }) }
}

describe('opening a session that a crash left mid-turn', () => {
  it('closes the turn: outcome unknown for a running tool, not started for a later one, then interrupted', async () => {
    const never = gate()
    const tools: Tool[] = [
      { name: 'charge', description: 'side effect', parameters: { type: 'object' }, parallel: false, execute: () => never.promise.then(() => 'charged') },
      { name: 'email', description: 'side effect', parameters: { type: 'object' }, execute: () => 'sent' },
    ]
    const { reopen } = await crashWhile(
      { model: scripted({ responses: [{ toolCalls: [{ name: 'charge', args: {} }, { name: 'email', args: {} }] }] }), tools },
      async (agent) => {
        agent.followup('pay and tell me')
        while (!agent.session.events.some((e) => e.type === 'tool/call')) await sleep(1)
      },
    )
    const agent = await reopen()
    expect(timeline(agent)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["pay and tell me"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "pay and tell me"
      assistant/message charge({}) email({})
      tool/call charge {}
      tool/result charge "TOOL_OUTCOME_UNKNOWN: the session stopped (crash or kill) wh…" error
      tool/result email "TOOL_NOT_STARTED: the session stopped (crash or kill) before…" error
      step/end 1.1 error
      turn/end 1 interrupted"
    `)
    expect(agent.recovery).toMatchObject({ turn: 1, outcomeUnknown: ['call_1_0'], notStarted: ['call_1_1'], requeued: [] })
    const results = agent.surface.messages.filter((m) => m.role === 'tool')
    expect(results.map((m) => m.content[0]?.type === 'text' && m.content[0].text)).toEqual([TOOL_OUTCOME_UNKNOWN, TOOL_NOT_STARTED])
    expect(agent.status).toBe('idle')
  })

  it('keeps the delivered prefix of a stream that the crash cut', async () => {
    const never = gate()
    const stalling: ModelAdapter = {
      name: 'stalling',
      async *stream() {
        yield { type: 'text-delta', text: 'Hel' }
        yield { type: 'text-delta', text: 'lo' }
        await never.promise
      },
    }
    const { reopen } = await crashWhile({ model: stalling }, async (agent) => {
      agent.followup('greet')
      while (agent.session.events.filter((e) => e.type === 'assistant/chunk').length < 2) await sleep(1)
    })
    const agent = await reopen()
    expect(timeline(agent)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["greet"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "greet"
      assistant/message "Hello" interrupted
      step/end 1.1 error
      turn/end 1 interrupted"
    `)
    expect(agent.surface.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Hello' }] })
  })

  it('puts claimed but never stepped messages back at the head of the queue each came from, so the batch stays together', async () => {
    const holdPreStep = preStepThatNeverReturns()
    const { reopen } = await crashWhile({ model: scripted(), plugins: [holdPreStep] }, async (agent) => {
      agent.inject(msg('context'))
      agent.followup(msg('first'))
      agent.followup(msg('second'))
      while (agent.inbox.nextTurn.length !== 1) await sleep(1)
    })
    const agent = await reopen()
    expect(agent.recovery.requeued).toEqual(['context', 'first'])
    expect(agent.inbox.nextStep.map((m) => m.id)).toEqual(['context'])
    expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual(['first', 'second'])
    // The re-queue is in the log before the repair's turn/end: a tear between them loses nothing.
    const types = agent.session.events.map((e) => e.type)
    expect(types.lastIndexOf('agent/inbox/spliced')).toBeLessThan(types.lastIndexOf('turn/end'))
    expect(agent.status).toBe('idle') // resume starts nothing by itself
    agent.followup(msg('third'))
    await agent.whenIdle()
    const work = foldConsumedWork(agent.session.events)
    expect(work.turns.map((t) => [t.end, t.stepped, t.unstepped])).toEqual([
      ['interrupted', [], ['context', 'first']],
      ['completed', ['context', 'first'], []], // the next turn carries both again, context first

      ['completed', ['second'], []],
      ['completed', ['third'], []],
    ])
  })

  it('changes nothing when the last turn was closed', async () => {
    const store = memoryStore()
    const first = await createAgent({ model: scripted(), store, sessionId: 'calm' })
    first.followup('hi')
    await first.whenIdle()
    const length = first.session.length
    const again = await createAgent({ model: scripted(), store, sessionId: 'calm' })
    expect(again.session.length).toBe(length)
    expect(again.recovery).toEqual({ notStarted: [], outcomeUnknown: [], requeued: [] })
    expect(again.turn).toBe(1)
  })
})

/** A stored session whose log is exactly `events` (type and data; seq and time filled in). */
async function storedLog(store: ReturnType<typeof memoryStore>, id: string, events: [string, unknown][]): Promise<void> {
  const created = await store.create({ id, version: LOG_FORMAT_VERSION, createdAt: 1 })
  events.forEach(([type, data], seq) => created.writer.append(Object.freeze({ seq, time: 1, type, data }) as SessionEvent))
  await created.writer.close()
}

describe('input a crash left waiting for its turn', () => {
  // What a waking send writes before its turn starts (the splice, durable, with the delivery the
  // host records in the source), and nothing after it: the state a crash — or a lost lease —
  // leaves between a send's admission and its turn/start.
  const admitOnly = (agent: Awaited<ReturnType<typeof createAgent>>, text: string) => {
    const message = createUserMessage(text, { source: { kind: 'user', delivery: 'followup' } })
    agent.inbox.splice('next-turn', agent.inbox.nextTurn.length, 0, [message])
    return message.id
  }

  it('reports input a waking send queued after a completed turn, or before any turn, as waiting (its owner wakes the agent)', async () => {
    const store = memoryStore()
    const first = await createAgent({ model: scripted(), store, sessionId: 'w' })
    const early = admitOnly(first, 'before any turn')
    expect((await createAgent({ model: scripted(), store, sessionId: 'w' })).recovery.waiting).toEqual([early])
    const second = await createAgent({ model: scripted({ responses: [{ text: 'a' }, { text: 'b' }] }), store, sessionId: 'w' })
    second.wake()
    await second.whenIdle()
    const late = admitOnly(second, 'after a completed turn')
    const third = await createAgent({ model: scripted({ responses: [{ text: 'c' }] }), store, sessionId: 'w' })
    expect(third.recovery).toEqual({ notStarted: [], outcomeUnknown: [], requeued: [], waiting: [late] })
    // Woken, it runs: nothing accepted is left behind.
    third.wake()
    await third.whenIdle()
    expect(third.inbox.hasPending).toBe(false)
  })

  it('reports input a program sent through the core API with a wake (followup, steer) as waiting; an inject stays parked', async () => {
    // Each send's events end to end (a fast turn), then the log cut right after the send's splice:
    // what a kill between the send's durable splice and its turn/start leaves.
    const cutAfterSend = async (send: (agent: Awaited<ReturnType<typeof createAgent>>) => { id: string }) => {
      const store = memoryStore()
      const live = await createAgent({ model: scripted({ responses: [{ text: 'a' }, { text: 'b' }] }), store, sessionId: 'api' })
      live.followup('answered before')
      await live.whenIdle()
      const sent = send(live)
      await live.whenIdle()
      await live.close()
      const full = (await store.open('api'))!
      await full.writer.close()
      const splice = full.events.findIndex((e) => e.type === 'agent/inbox/spliced' && (e.data as { inserted: { id: string }[] }).inserted.some((m) => m.id === sent.id))
      const cut = memoryStore()
      await (await cut.create(full.header, full.events.slice(0, splice + 1))).writer.close()
      return { id: sent.id, reopen: () => createAgent({ model: scripted({ responses: [{ text: 'c' }] }), store: cut, sessionId: 'api' }) }
    }
    for (const send of [(a: Awaited<ReturnType<typeof createAgent>>) => a.followup('a follow-up'), (a: Awaited<ReturnType<typeof createAgent>>) => a.steer('a steer')]) {
      const { id, reopen } = await cutAfterSend(send)
      const agent = await reopen()
      expect(agent.recovery.waiting).toEqual([id])
      // Woken (as whoever resumes it does), it runs: nothing sent is left behind.
      agent.wake()
      await agent.whenIdle()
      expect(agent.inbox.hasPending).toBe(false)
      expect(agent.session.events.some((e) => e.type === 'user/message' && (e.data as { id: string }).id === id)).toBe(true)
      await agent.close()
    }
    // An inject rides the next turn: it never woke the agent, so resume owes it nothing.
    const injected = await cutAfterSend((a) => {
      const message = a.inject('context for later')
      a.followup('runs it') // so that the live agent's turn takes it and the cut log ends right after the inject
      return message
    })
    const parked = await injected.reopen()
    expect(parked.inbox.nextStep.map((m) => m.id)).toEqual([injected.id])
    expect(parked.recovery.waiting).toBeUndefined()
    await parked.close()
  })

  it('records how the core API sent a message in its source (followup, steer, inject), keeping a delivery the caller set to the same', async () => {
    const agent = await createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()] })
    const followup = agent.followup('f')
    const steer = agent.steer(createUserMessage('s', { source: { kind: 'tool', name: 'probe' } }))
    const inject = agent.inject('i')
    // A caller's own delivery that disagrees with the method is refused (loop/send-delivery.test.ts).
    const hostSent = agent.steer(createUserMessage('h', { source: { kind: 'user', delivery: 'steer' } }))
    expect([followup, steer, inject, hostSent].map((m) => m.source)).toEqual([
      { kind: 'user', delivery: 'followup' },
      { kind: 'tool', name: 'probe', delivery: 'steer' },
      { kind: 'user', delivery: 'inject' },
      { kind: 'user', delivery: 'steer' },
    ])
    // The queued (and logged) message is the one returned: its id is the receipt, its source says how it came.
    expect([...agent.inbox.nextStep, ...agent.inbox.nextTurn]).toEqual(expect.arrayContaining([followup, steer, inject, hostSent]))
    expect(Object.isFrozen(followup.source)).toBe(true)
    agent.abort('done')
    await agent.whenIdle()
  })

  it('reports input queued before a completed turn ended and still pending (the driver would have run on), whatever its source', async () => {
    const store = memoryStore()
    const message = (id: string) => createUserMessage(id, { id })
    await storedLog(store, 'on', [
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [message('a'), message('b')] }],
      ['turn/start', { turn: 1 }],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }],
      ['turn/end', { turn: 1, reason: { kind: 'completed' } }],
    ])
    const agent = await createAgent({ model: scripted(), store, sessionId: 'on' })
    expect(agent.recovery.waiting).toEqual(['b'])
    await agent.close()
  })

  it('reports input pending at the end of a turn whose model call failed (the driver runs on), not at an end a throw caused (it parks)', async () => {
    // Live, both end `error`: after a failed call the agent goes on with its queue; after a hook
    // threw it stops. The log tells them apart by `model: true` (found by the delivery property).
    const throwing = definePlugin({ name: 'throws', setup: ({ hooks }) => hooks.preStep.tapPromise('throws', async () => { throw new Error('pre-step bug') }) })
    const crashed = await createAgent({ model: scripted(), plugins: [throwing] })
    crashed.followup('first')
    await crashed.whenIdle()
    const thrown = (crashed.session.last!.data as { reason: Record<string, unknown> }).reason
    expect(thrown.kind).toBe('error')
    expect(thrown.model).toBeUndefined()
    await crashed.close()

    const message = (id: string) => createUserMessage(id, { id, source: { kind: 'user', delivery: 'followup' } })
    const logEndingIn = (reason: unknown): [string, unknown][] => [
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [message('a'), message('b')] }],
      ['turn/start', { turn: 1 }],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }],
      ['turn/end', { turn: 1, reason }],
    ]
    const error = { code: 'SERVER', message: 'Scripted model error: SERVER (HTTP 503).', status: 503, retryable: true }
    const store = memoryStore()
    await storedLog(store, 'failed-call', logEndingIn({ kind: 'error', error, model: true }))
    await storedLog(store, 'threw', logEndingIn({ kind: 'error', error: thrown.error }))
    const afterFailedCall = await createAgent({ model: scripted(), store, sessionId: 'failed-call' })
    expect(afterFailedCall.recovery.waiting).toEqual(['b'])
    const afterThrow = await createAgent({ model: scripted(), store, sessionId: 'threw' })
    expect(afterThrow.inbox.nextTurn.map((m) => m.id)).toEqual(['b'])
    expect(afterThrow.recovery.waiting).toBeUndefined()
    await Promise.all([afterFailedCall.close(), afterThrow.close()])
  })

  it('does not report a message a blocked turn took that a plugin put back after the end without a wake, though the host sent it as a follow-up', async () => {
    const store = memoryStore()
    const sent = createUserMessage('held for approval', { id: 'a', source: { kind: 'user', delivery: 'followup' } })
    await storedLog(store, 'held', [
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [sent] }],
      ['turn/start', { turn: 1 }],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }],
      ['agent/pre-step/rejected', { turn: 1, by: 'approval', metadata: null }],
      ['turn/end', { turn: 1, reason: { kind: 'blocked', by: 'approval', metadata: null } }],
      // The plugin splices it back later (SPEC §4: it may), to run when someone wakes the agent.
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [sent] }],
    ])
    const agent = await createAgent({ model: scripted(), store, sessionId: 'held' })
    expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual(['a'])
    expect(agent.recovery.waiting).toBeUndefined()
    await agent.close()
  })

  it('does not report input parked after a completed turn: an inject, a plugin\'s splice without a wake (a subagent settlement after a cancel)', async () => {
    const store = memoryStore()
    const first = await createAgent({ model: scripted({ responses: [{ text: 'a' }] }), store, sessionId: 'parked' })
    first.followup('answered')
    await first.whenIdle()
    first.inject(createUserMessage('context for the next turn', { source: { kind: 'user', delivery: 'inject' } }))
    first.inbox.splice('next-turn', 0, 0, [createUserMessage('settled', { id: 'settle:c:1', source: { kind: 'subagent-settled', childId: 'c', epoch: 1 } })])
    expect(first.status).toBe('idle')
    // Abandoned (the memory store wrote every event): what a crash — or a clean close — leaves.
    const reopened = await createAgent({ model: scripted(), store, sessionId: 'parked' })
    expect(reopened.inbox.hasPending).toBe(true)
    expect(reopened.recovery.waiting).toBeUndefined()
  })

  it.each([
    ['a shutdown (abort(SHUTDOWN_ABORT_REASON), then close()) owes the queue its turns (review Y10)', true],
    ['a user leaving (close() alone: bosun chat\'s exit) parks it, as a Stop does (review R12)', false],
  ] as const)('input queued behind a turn that was closed: %s', async (_, shutdown) => {
    const store = memoryStore()
    const closing = await createAgent({ model: scripted(), store, sessionId: 'closed', plugins: [preStepThatNeverReturns()] })
    closing.followup('a')
    while (!closing.session.events.some((e) => e.type === 'turn/start')) await sleep(1)
    const queued = closing.followup('b')
    // What `bosun serve` does on SIGTERM once its grace is over: abort as a shutdown, then close.
    if (shutdown) closing.abort(SHUTDOWN_ABORT_REASON)
    await closing.close()
    expect((closing.session.last!.data as { reason: unknown }).reason).toEqual({ kind: 'aborted', reason: shutdown ? 'shutdown' : 'closed' })
    const reopened = await createAgent({ model: scripted(), store, sessionId: 'closed' })
    expect(reopened.recovery.waiting).toEqual(shutdown ? [queued.id] : undefined)
    await reopened.close()
  })

  it('does not report input a Stop parked: after an aborted turn the queue waits for a wake', async () => {
    const { store } = await crashWhile({ model: scripted(), plugins: [preStepThatNeverReturns()] }, async (agent) => {
      agent.followup('first')
      while (agent.status !== 'running' || !agent.session.events.some((e) => e.type === 'turn/start')) await sleep(1)
      agent.followup('parked by the stop')
      agent.abort('stop')
      await agent.whenIdle()
    })
    const reopened = await createAgent({ model: scripted(), store, sessionId: 'crash' })
    expect(reopened.inbox.nextTurn.map((m) => m.id)).toHaveLength(1)
    expect(reopened.recovery.waiting).toBeUndefined()
  })

  it('does not report input a Stop parked that was reordered, edited or promoted after the stop: moving a message does not send it again', async () => {
    const hostSent = (id: string) => createUserMessage(id, { id, source: { kind: 'user', delivery: 'followup' } })
    const { store } = await crashWhile({ model: scripted(), plugins: [preStepThatNeverReturns()] }, async (agent) => {
      agent.followup('first')
      while (agent.status !== 'running' || !agent.session.events.some((e) => e.type === 'turn/start')) await sleep(1)
      for (const id of ['a', 'b', 'c']) agent.followup(hostSent(id))
      agent.abort('stop')
      await agent.whenIdle()
      // What the host's PUT /inbox/order, PATCH /inbox/:id and promote write: splices that insert the parked messages again.
      agent.inbox.splice('next-turn', 0, 3, [hostSent('c'), hostSent('a'), hostSent('b')])
      agent.inbox.replace('a', 'a, edited')
      agent.inbox.move('b', 'next-step')
    })
    const reopened = await createAgent({ model: scripted(), store, sessionId: 'crash' })
    expect([...reopened.inbox.nextStep, ...reopened.inbox.nextTurn].map((m) => m.id)).toEqual(['b', 'c', 'a'])
    expect(reopened.recovery.waiting).toBeUndefined()
  })

  it('after a Stop, a waking send that no turn took yet is owed its wake, which runs the parked input with it', async () => {
    const { store } = await crashWhile({ model: scripted(), plugins: [preStepThatNeverReturns()] }, async (agent) => {
      agent.followup('first')
      while (agent.status !== 'running' || !agent.session.events.some((e) => e.type === 'turn/start')) await sleep(1)
      agent.followup(createUserMessage('parked by the stop', { id: 'parked' }))
      agent.abort('stop')
      await agent.whenIdle()
      admitOnly(agent, 'sent after the stop')
    })
    const reopened = await createAgent({ model: scripted(), store, sessionId: 'crash' })
    expect(reopened.recovery.waiting).toEqual(['parked', reopened.inbox.nextTurn[1]!.id])
  })
})

describe('forking a session', () => {
  it('seeds the child with the completed prefix, without the parent pending input, and continues its turn count', async () => {
    const store = memoryStore()
    const parent = await createAgent({ model: scripted(), store, sessionId: 'parent' })
    parent.followup('one')
    await parent.whenIdle()
    parent.inject(msg('parked')) // pending in the parent only
    await forkSession(store, 'parent', { id: 'child' })
    const child = await createAgent({ model: scripted(), store, sessionId: 'child' })
    expect(child.inbox.hasPending).toBe(false)
    expect(child.surface.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(child.session.header).toMatchObject({ parent: 'parent', seedLength: child.session.length })
    child.followup('two')
    await child.whenIdle()
    expect(child.turn).toBe(2)
    expect(parent.inbox.nextStep.map((m) => m.id)).toEqual(['parked'])
  })
})

describe('a pre-step that rewrites a claimed message under a new id', () => {
  const rewriter = (hold: Promise<void>) =>
    definePlugin({
      name: 'rewrite',
      setup({ hooks }) {
        hooks.preStep.tapPromise('rewrite', async (decision) => {
          if (decision.kind !== 'enter') return decision
          // A new id, and no word on where it came from: the core links it to the claimed message.
          return { kind: 'enter', messages: decision.messages.map((m) => msg(`rewritten: ${m.id}`, `new-${m.id}`)) }
        })
        hooks.prepareCall.tapPromise('hold', async (request) => {
          await hold
          return request
        })
      },
    })

  it('counts the original as stepped: a crash after its user/message does not run it twice', async () => {
    const never = gate()
    const { reopen } = await crashWhile({ model: scripted(), plugins: [rewriter(never.promise)] }, async (agent) => {
      agent.followup(msg('charge the card', 'M'))
      while (!agent.session.events.some((e) => e.type === 'user/message')) await sleep(1)
    })
    const agent = await reopen()
    expect(agent.recovery.requeued).toEqual([])
    expect(agent.inbox.hasPending).toBe(false)
    const delivered = agent.session.events.find((e) => e.type === 'user/message')!.data as { id: string; source: { derivedFrom?: string[] } }
    expect(delivered).toMatchObject({ id: 'new-M', source: { derivedFrom: ['M'] } })
    expect(foldConsumedWork(agent.session.events).turns).toEqual([{ turn: 1, stepped: ['M'], unstepped: [], end: 'interrupted' }])
  })

  it('the audit fold counts the original as stepped in a completed turn', async () => {
    const agent = await createAgent({ model: scripted(), plugins: [rewriter(Promise.resolve())] })
    agent.followup(msg('a', 'A'))
    await agent.whenIdle()
    expect(foldConsumedWork(agent.session.events).turns).toEqual([{ turn: 1, stepped: ['A'], unstepped: [], end: 'completed' }])
  })
})

describe('a repair torn by a second crash', () => {
  it('loses nothing: with the re-queue in the log but not turn/end, the next open finishes the repair without re-queuing twice', async () => {
    const holdPreStep = preStepThatNeverReturns()
    let crashedAt = 0
    const { store, reopen } = await crashWhile({ model: scripted(), plugins: [holdPreStep] }, async (agent) => {
      agent.inject(msg('context'))
      agent.followup(msg('first'))
      while (agent.inbox.nextTurn.length !== 0 || agent.inbox.nextStep.length !== 0) await sleep(1)
      crashedAt = agent.session.length
    })
    const repaired = await reopen()
    await repaired.close()
    const full = (await store.open('crash'))!
    await full.writer.close()
    // Every prefix the repair batch could have been torn at: from none of it to all but turn/end.
    expect(full.events.slice(crashedAt).map((e) => e.type)).toEqual(['agent/inbox/spliced', 'agent/inbox/spliced', 'turn/end'])
    for (let cut = crashedAt; cut < full.events.length; cut++) {
      const torn = memoryStore()
      await (await torn.create(full.header, full.events.slice(0, cut))).writer.close()
      const agent = await createAgent({ model: scripted(), store: torn, sessionId: 'crash' })
      expect(agent.inbox.nextStep.map((m) => m.id), `cut at ${cut}`).toEqual(['context'])
      expect(agent.inbox.nextTurn.map((m) => m.id), `cut at ${cut}`).toEqual(['first'])
      expect(agent.session.events.filter((e) => e.type === 'turn/end')).toHaveLength(1)
      await agent.close()
    }
  })
})
