// Behaviour of the driver: followup / steer / inject, status, whenIdle, maintenance and resume
// (seed 000 "复杂场景二/三/四/五", seed 003 §4–§7, §10, §15; SPEC §4).
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import type { AgentStatus } from '../hooks.js'
import { memoryStore } from '../store/memory.js'
import { is, nextEvent, settle, statuses, turnBoundaries } from '../testing/agent-probes.js'
import { gate, harness, msg, timeline } from '../testing/harness.js'
import { blockingTool } from '../testing/tools.js'

describe('followup', () => {
  it('runs one turn for one follow-up: turn/start, claim, step, user/message, answer, turn/end', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'hello back' }] })
    agent.followup('hello')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hello"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hello"
      assistant/message "hello back"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
    expect(agent.status).toBe('idle')
    expect(agent.turn).toBe(1)
  })

  it('returns the queued UserMessage; its id is the id of the logged user/message', async () => {
    const { agent } = await harness()
    const receipt = agent.followup('hello')
    expect(receipt).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } })
    expect(Object.isFrozen(receipt)).toBe(true)
    await agent.whenIdle()
    const logged = agent.session.events.filter(is('user/message')).map((e) => (e.data as { id: string }).id)
    expect(logged).toEqual([receipt.id])
  })

  it('accepts a prepared UserMessage and keeps its id', async () => {
    const { agent, timeline } = await harness()
    const receipt = agent.followup(msg('prepared', 'id-1'))
    expect(receipt.id).toBe('id-1')
    await agent.whenIdle()
    expect(agent.session.events.filter(is('user/message')).map((e) => (e.data as { id: string }).id)).toEqual(['id-1'])
    expect(timeline()).toContain('assistant/message "echo: prepared"')
  })

  it('runs three follow-ups as three turns in FIFO order while the status stays running', async () => {
    const { agent, timeline } = await harness()
    const seen = statuses(agent)
    const statusAtTurnStart: AgentStatus[] = []
    agent.session.subscribe((event) => {
      if (event.type === 'turn/start') statusAtTurnStart.push(agent.status)
    })
    agent.followup('one')
    agent.followup('two')
    agent.followup('three')
    expect(agent.status).toBe('running')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["one"]
      splice next-turn @1 +["two"]
      splice next-turn @2 +["three"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "one"
      assistant/message "echo: one"
      step/end 1.1 stop
      turn/end 1 completed
      turn/start 2
      splice next-turn @0 -1
      step/start 2.1
      user/message "two"
      assistant/message "echo: two"
      step/end 2.1 stop
      turn/end 2 completed
      turn/start 3
      splice next-turn @0 -1
      step/start 3.1
      user/message "three"
      assistant/message "echo: three"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
    expect(seen).toEqual(['running', 'idle'])
    expect(statusAtTurnStart).toEqual(['running', 'running', 'running'])
  })

  it('queues follow-ups sent while a turn runs and runs them afterwards, one turn each, in order', async () => {
    const wait = blockingTool()
    const { agent, timeline } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }] })
    const seen = statuses(agent)
    const started = nextEvent(agent, is('tool/call'))
    agent.followup('first')
    await started
    agent.followup('second')
    agent.followup('third')
    wait.release()
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["first"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "first"
      assistant/message wait({})
      tool/call wait {}
      splice next-turn @0 +["second"]
      splice next-turn @1 +["third"]
      tool/result wait "waited"
      step/end 1.1 tool-calls
      step/start 1.2
      assistant/message "echo: first"
      step/end 1.2 stop
      turn/end 1 completed
      turn/start 2
      splice next-turn @0 -1
      step/start 2.1
      user/message "second"
      assistant/message "echo: second"
      step/end 2.1 stop
      turn/end 2 completed
      turn/start 3
      splice next-turn @0 -1
      step/start 3.1
      user/message "third"
      assistant/message "echo: third"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
    expect(seen).toEqual(['running', 'idle'])
  })

  it('opens the next turn when an observer of turn/end sends a follow-up (the driver re-checks the inbox)', async () => {
    const { agent } = await harness()
    let sent = false
    agent.session.subscribe((event) => {
      if (event.type === 'turn/end' && !sent) {
        sent = true
        agent.followup('from observer')
      }
    })
    const seen = statuses(agent)
    agent.followup('first')
    await agent.whenIdle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
    expect(timeline(agent)).toContain('user/message "from observer"')
    expect(seen).toEqual(['running', 'idle'])
  })
})

describe('steer', () => {
  it('lands in the next step of the running turn: after the tool results, in step 2 of the same turn', async () => {
    const wait = blockingTool()
    const model = scripted({ record: true, responses: [{ toolCalls: [{ name: 'wait' }] }, { text: 'adjusted' }] })
    const { agent, timeline } = await harness({ model, tools: [wait.tool] })
    const started = nextEvent(agent, is('tool/call'))
    agent.followup('go')
    await started
    agent.steer('change course')
    wait.release()
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      assistant/message wait({})
      tool/call wait {}
      splice next-step @0 +["change course"]
      tool/result wait "waited"
      step/end 1.1 tool-calls
      splice next-step @0 -1
      step/start 1.2
      user/message "change course"
      assistant/message "adjusted"
      step/end 1.2 stop
      turn/end 1 completed"
    `)
    // The model's second request: the tool result first, then the steering message.
    expect(model.recorded[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
  })

  it('collects several steers sent during one step into the next step, in order', async () => {
    const wait = blockingTool()
    const { agent, timeline } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }, { text: 'ok' }] })
    const started = nextEvent(agent, is('tool/call'))
    agent.followup('go')
    await started
    agent.steer('s1')
    agent.steer('s2')
    wait.release()
    await agent.whenIdle()
    expect(timeline().split('\n').slice(10)).toMatchInlineSnapshot(`
      [
        "step/end 1.1 tool-calls",
        "splice next-step @0 -2",
        "step/start 1.2",
        "user/message "s1"",
        "user/message "s2"",
        "assistant/message "ok"",
        "step/end 1.2 stop",
        "turn/end 1 completed",
      ]
    `)
  })

  it('opens a turn when the agent is idle; the steering message is that turn\'s first input', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'on it' }] })
    const seen = statuses(agent)
    agent.steer('nudge')
    expect(agent.status).toBe('running')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-step @0 +["nudge"]
      turn/start 1
      splice next-step @0 -1
      step/start 1.1
      user/message "nudge"
      assistant/message "on it"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
    expect(seen).toEqual(['running', 'idle'])
  })

  it('a steer that arrives while the final answer streams rides one more step of the same turn (seed 003: a steer opens no turn)', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'abc', chunkSize: 1, delayMs: 1 }, { text: 'next' }] })
    let steered = false
    agent.session.subscribe((event) => {
      if (event.type === 'assistant/chunk' && !steered) {
        steered = true
        agent.steer('late steer')
      }
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      splice next-step @0 +["late steer"]
      assistant/message "abc"
      step/end 1.1 stop
      splice next-step @0 -1
      step/start 1.2
      user/message "late steer"
      assistant/message "next"
      step/end 1.2 stop
      turn/end 1 completed"
    `)
  })

  it('an inject that lands during the last step rides one more step of the same turn, not a turn of its own', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'abc', chunkSize: 1, delayMs: 1 }, { text: 'noted' }] })
    let injected = false
    agent.session.subscribe((event) => {
      if (event.type === 'assistant/chunk' && !injected) {
        injected = true
        agent.inject('cwd is /tmp')
      }
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      splice next-step @0 +["cwd is /tmp"]
      assistant/message "abc"
      step/end 1.1 stop
      splice next-step @0 -1
      step/start 1.2
      user/message "cwd is /tmp"
      assistant/message "noted"
      step/end 1.2 stop
      turn/end 1 completed"
    `)
    expect(agent.turn).toBe(1)
  })
})

describe('inject', () => {
  it('opens no turn when idle: the message waits in next-step and the status stays idle', async () => {
    const { agent, adapter, timeline } = await harness()
    const seen = statuses(agent)
    agent.inject('background fact')
    expect(agent.status).toBe('idle')
    await agent.whenIdle()
    await settle()
    expect(timeline()).toMatchInlineSnapshot(`"splice next-step @0 +["background fact"]"`)
    expect(agent.inbox.nextStep.map((m) => m.content)).toEqual([[{ type: 'text', text: 'background fact' }]])
    expect(seen).toEqual([])
    expect(adapter.requests).toBe(0)
  })

  it('rides the next turn: the injected message precedes the follow-up in that turn\'s first step', async () => {
    const model = scripted({ record: true })
    const { agent, timeline } = await harness({ model })
    agent.inject('fact')
    await settle()
    agent.followup('question')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-step @0 +["fact"]
      splice next-turn @0 +["question"]
      turn/start 1
      splice next-step @0 -1
      splice next-turn @0 -1
      step/start 1.1
      user/message "fact"
      user/message "question"
      assistant/message "echo: question"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
    expect(model.recorded).toHaveLength(1)
  })

  it('rides the next step of a running turn without needing a wake', async () => {
    const wait = blockingTool()
    const { agent, timeline } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }, { text: 'ok' }] })
    const started = nextEvent(agent, is('tool/call'))
    agent.followup('go')
    await started
    agent.inject('quiet context')
    wait.release()
    await agent.whenIdle()
    expect(timeline().split('\n').slice(6)).toMatchInlineSnapshot(`
      [
        "tool/call wait {}",
        "splice next-step @0 +["quiet context"]",
        "tool/result wait "waited"",
        "step/end 1.1 tool-calls",
        "splice next-step @0 -1",
        "step/start 1.2",
        "user/message "quiet context"",
        "assistant/message "ok"",
        "step/end 1.2 stop",
        "turn/end 1 completed",
      ]
    `)
  })
})

describe('claim rule', () => {
  it('the first step of a turn takes all of next-step, then exactly one next-turn message', async () => {
    const { agent, timeline } = await harness()
    agent.inject('i1')
    agent.inject('i2')
    agent.followup('f1')
    agent.followup('f2')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-step @0 +["i1"]
      splice next-step @1 +["i2"]
      splice next-turn @0 +["f1"]
      splice next-turn @1 +["f2"]
      turn/start 1
      splice next-step @0 -2
      splice next-turn @0 -1
      step/start 1.1
      user/message "i1"
      user/message "i2"
      user/message "f1"
      assistant/message "echo: f1"
      step/end 1.1 stop
      turn/end 1 completed
      turn/start 2
      splice next-turn @0 -1
      step/start 2.1
      user/message "f2"
      assistant/message "echo: f2"
      step/end 2.1 stop
      turn/end 2 completed"
    `)
  })

  it('a later step takes only next-step: a follow-up queued during step 1 waits for its own turn', async () => {
    const wait = blockingTool()
    const { agent, timeline } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }, { text: 'step two' }] })
    const started = nextEvent(agent, is('tool/call'))
    agent.followup('go')
    await started
    agent.followup('later')
    agent.steer('now')
    wait.release()
    await agent.whenIdle()
    expect(timeline().split('\n').slice(6)).toMatchInlineSnapshot(`
      [
        "tool/call wait {}",
        "splice next-turn @0 +["later"]",
        "splice next-step @0 +["now"]",
        "tool/result wait "waited"",
        "step/end 1.1 tool-calls",
        "splice next-step @0 -1",
        "step/start 1.2",
        "user/message "now"",
        "assistant/message "step two"",
        "step/end 1.2 stop",
        "turn/end 1 completed",
        "turn/start 2",
        "splice next-turn @0 -1",
        "step/start 2.1",
        "user/message "later"",
        "assistant/message "echo: later"",
        "step/end 2.1 stop",
        "turn/end 2 completed",
      ]
    `)
  })

  it('notifies claimed(message, turn) for each claimed message, next-step first', async () => {
    const { agent } = await harness()
    const claimed: string[] = []
    agent.hooks.inboxClaimed.tap('test', (message, turn) => void claimed.push(`${message.id}@${turn}`))
    agent.inject(msg('ctx'))
    agent.followup(msg('a'))
    agent.followup(msg('b'))
    await agent.whenIdle()
    expect(claimed).toEqual(['ctx@1', 'a@1', 'b@2'])
  })
})

describe('driver', () => {
  it('never runs two drivers for a burst of wakes in one tick: turns are strictly sequential', async () => {
    const { agent, timeline } = await harness()
    const seen = statuses(agent)
    agent.followup('f1')
    agent.steer('s1')
    agent.followup('f2')
    agent.steer('s2')
    agent.followup('f3')
    await agent.whenIdle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'])
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["f1"]
      splice next-step @0 +["s1"]
      splice next-turn @1 +["f2"]
      splice next-step @1 +["s2"]
      splice next-turn @2 +["f3"]
      turn/start 1
      splice next-step @0 -2
      splice next-turn @0 -1
      step/start 1.1
      user/message "s1"
      user/message "s2"
      user/message "f1"
      assistant/message "echo: f1"
      step/end 1.1 stop
      turn/end 1 completed
      turn/start 2
      splice next-turn @0 -1
      step/start 2.1
      user/message "f2"
      assistant/message "echo: f2"
      step/end 2.1 stop
      turn/end 2 completed
      turn/start 3
      splice next-turn @0 -1
      step/start 3.1
      user/message "f3"
      assistant/message "echo: f3"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
    expect(seen).toEqual(['running', 'idle'])
  })

  it('never runs two drivers when many wakes arrive from observers while a turn runs', async () => {
    const { agent } = await harness({ responses: [{ text: 'abcd', chunkSize: 1, delayMs: 1 }] })
    let n = 0
    agent.session.subscribe((event) => {
      const { turn, step } = event.data as { turn: number; step: number }
      if (event.type === 'assistant/chunk' && turn === 1 && step === 1) {
        n++
        agent.followup(`f${n}`)
        agent.steer(`s${n}`)
      }
    })
    agent.followup('start')
    await agent.whenIdle()
    const boundaries = turnBoundaries(agent)
    // Turn 1 streams 4 chunks (+ finish) → 5 chunk events → 5 steers (one more step of turn 1) and
    // 5 follow-ups → 5 more turns, strictly alternating.
    expect(boundaries).toEqual(Array.from({ length: 6 }, (_, i) => [`start ${i + 1}`, `end ${i + 1}`]).flat())
    expect(agent.inbox.hasPending).toBe(false)
  })

  it('reports the status synchronously: running as soon as a waking send is accepted, idle when the driver retires', async () => {
    const { agent } = await harness()
    const seen = statuses(agent)
    expect(agent.status).toBe('idle')
    agent.followup('x')
    expect(seen).toEqual(['running'])
    expect(agent.status).toBe('running')
    // No hook of the turn has run inside followup(): the driver starts on a later microtask.
    expect(agent.session.events.filter(is('turn/start'))).toHaveLength(0)
    await agent.whenIdle()
    expect(seen).toEqual(['running', 'idle'])
    expect(agent.status).toBe('idle')
  })
})

describe('whenIdle', () => {
  it('resolves at once when no driver is active', async () => {
    const { agent } = await harness()
    let resolved = false
    void agent.whenIdle().then(() => (resolved = true))
    await Promise.resolve()
    await Promise.resolve()
    expect(resolved).toBe(true)
  })

  it('resolves only after every queued turn has ended', async () => {
    const { agent } = await harness()
    agent.followup('a')
    agent.followup('b')
    let lengthAtIdle = -1
    await agent.whenIdle().then(() => (lengthAtIdle = agent.session.length))
    expect(lengthAtIdle).toBe(agent.session.length)
    expect(agent.session.last?.type).toBe('turn/end')
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
  })

  it('does not resolve between an aborted turn and the latched restart it owes', async () => {
    const { agent } = await harness({ responses: [{ text: 'slow answer', chunkSize: 1, delayMs: 1 }, { text: 'second' }] })
    const firstChunk = nextEvent(agent, is('assistant/chunk'))
    agent.followup('first')
    const idle = agent.whenIdle().then(() => agent.session.events.map((e) => e.type))
    await firstChunk
    agent.abort()
    agent.followup('second')
    const typesAtIdle = await idle
    expect(typesAtIdle.filter((t) => t === 'turn/end')).toHaveLength(2)
    expect(typesAtIdle.at(-1)).toBe('turn/end')
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
  })
})

describe('maintenance', () => {
  it('runs from idle while the status stays idle; a follow-up sent meanwhile is queued and runs after the task', async () => {
    const { agent, timeline } = await harness()
    const seen = statuses(agent)
    const release = gate()
    const during: string[] = []
    const done = agent.runMaintenance(async ({ signal }) => {
      during.push(agent.status, String(signal.aborted))
      agent.followup('queued')
      await release.promise
      during.push(`turns started during task: ${agent.session.events.filter(is('turn/start')).length}`)
      return 42
    })
    await settle()
    expect(agent.status).toBe('idle')
    expect(seen).toEqual([])
    expect(agent.inbox.nextTurn).toHaveLength(1)
    release.open()
    expect(await done).toBe(42)
    await agent.whenIdle()
    expect(during).toEqual(['idle', 'false', 'turns started during task: 0'])
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["queued"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "queued"
      assistant/message "echo: queued"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
    expect(seen).toEqual(['running', 'idle'])
  })

  it('a failing task rejects runMaintenance, and a wake that arrived during it is still honoured', async () => {
    const { agent } = await harness()
    const done = agent.runMaintenance(() => {
      agent.followup('during')
      throw new Error('compaction failed')
    })
    await expect(done).rejects.toThrow('compaction failed')
    await agent.whenIdle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
    expect(agent.status).toBe('idle')
  })

  it('abort() aborts the maintenance signal with its reason', async () => {
    const { agent } = await harness()
    const done = agent.runMaintenance(
      ({ signal }) =>
        new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve(`aborted: ${String(signal.reason)}`))),
    )
    await settle()
    agent.abort('stop compacting')
    expect(await done).toBe('aborted: stop compacting')
    expect(agent.status).toBe('idle')
    expect(agent.session.length).toBe(0)
  })

  it('waits for the running driver to finish before the task starts', async () => {
    const wait = blockingTool()
    const { agent } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }] })
    const started = nextEvent(agent, is('tool/call'))
    agent.followup('go')
    await started
    let lastEventWhenTaskRan = ''
    const done = agent.runMaintenance(() => {
      lastEventWhenTaskRan = agent.session.last!.type
    })
    await settle()
    expect(lastEventWhenTaskRan).toBe('')
    wait.release()
    await done
    expect(lastEventWhenTaskRan).toBe('turn/end')
  })

  it('whenIdle waits for the maintenance task and for the turn a wake during it owes', async () => {
    const { agent } = await harness()
    const release = gate()
    const done = agent.runMaintenance(async () => {
      agent.steer('during maintenance')
      await release.promise
    })
    let idleAt = ''
    const idle = agent.whenIdle().then(() => (idleAt = agent.session.last?.type ?? 'nothing'))
    await settle()
    expect(idleAt).toBe('')
    release.open()
    await done
    await idle
    expect(idleAt).toBe('turn/end')
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
  })
})

describe('resume', () => {
  it('a second agent on the same store and session id rebuilds inbox, surface and turn counter, starts nothing, and runs the parked work next-step first at the next wake', async () => {
    const store = memoryStore()
    const wait = blockingTool()
    const first = await createAgent({
      model: scripted({ responses: [{ toolCalls: [{ name: 'wait' }] }] }),
      store,
      sessionId: 'resume-1',
      tools: [wait.tool],
    })
    const started = nextEvent(first, is('tool/call'))
    first.followup('one')
    await started
    first.followup('two')
    first.inject('context')
    first.cancel({ keepInbox: true })
    wait.release()
    await first.whenIdle()
    await first.close()
    const before = first.session.length
    const surfaceBefore = first.surface.messages

    const second = await createAgent({ model: scripted(), store, sessionId: 'resume-1', tools: [wait.tool] })
    const seen = statuses(second)
    expect(second.turn).toBe(1)
    expect(second.inbox.nextTurn.map((m) => m.content)).toEqual([[{ type: 'text', text: 'two' }]])
    expect(second.inbox.nextStep.map((m) => m.content)).toEqual([[{ type: 'text', text: 'context' }]])
    expect(second.surface.messages).toEqual(surfaceBefore)
    await settle()
    expect(second.session.length).toBe(before)
    expect(second.status).toBe('idle')
    expect(seen).toEqual([])

    second.followup('three')
    await second.whenIdle()
    expect(timeline(second.session.events.slice(before))).toMatchInlineSnapshot(`
      "splice next-turn @1 +["three"]
      turn/start 2
      splice next-step @0 -1
      splice next-turn @0 -1
      step/start 2.1
      user/message "context"
      user/message "two"
      assistant/message "echo: two"
      step/end 2.1 stop
      turn/end 2 completed
      turn/start 3
      splice next-turn @0 -1
      step/start 3.1
      user/message "three"
      assistant/message "echo: three"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
  })

  it('a resumed agent continues the turn counter after the last turn of the log', async () => {
    const store = memoryStore()
    const first = await createAgent({ model: scripted(), store, sessionId: 'resume-2' })
    first.followup('a')
    first.followup('b')
    await first.whenIdle()
    await first.close()
    const second = await createAgent({ model: scripted(), store, sessionId: 'resume-2' })
    expect(second.turn).toBe(2)
    second.followup('c')
    await second.whenIdle()
    expect(second.session.events.filter(is('turn/start')).map((e) => (e.data as { turn: number }).turn)).toEqual([1, 2, 3])
    // The model sees the whole resumed history.
    expect(second.surface.messages.filter((m) => m.role === 'user')).toHaveLength(3)
  })
})

describe('close', () => {
  it('aborts the running turn (reason closed), waits for idle and keeps pending input stored for a resume', async () => {
    const wait = blockingTool()
    const { agent } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }] })
    agent.followup('one')
    await wait.started
    agent.followup('two')
    const closed = agent.close()
    await closed
    expect(agent.session.last!.data).toEqual({ turn: 1, reason: { kind: 'aborted', reason: 'closed' } })
    expect(agent.inbox.nextTurn).toHaveLength(1)
    expect(agent.status).toBe('idle')
    wait.release()
    await settle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
  })

  it('refuses new input once closed, with AGENT_CLOSED, and writes nothing', async () => {
    const { agent } = await harness()
    await agent.close()
    expect(() => agent.followup('late')).toThrow(expect.objectContaining({ code: 'AGENT_CLOSED' }))
    expect(() => agent.steer('late')).toThrow(expect.objectContaining({ code: 'AGENT_CLOSED' }))
    expect(() => agent.inject('late')).toThrow(expect.objectContaining({ code: 'AGENT_CLOSED' }))
    // Pending input of a closed agent is stored for a resume: it is canceled by the agent that resumes.
    let told = 0
    agent.hooks.canceled.tap('test', () => void told++)
    expect(() => agent.cancel()).toThrow(expect.objectContaining({ code: 'AGENT_CLOSED' }))
    expect(told).toBe(0)
    expect(agent.session.length).toBe(0)
  })
})
