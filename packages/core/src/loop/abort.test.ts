// Abort, cancel, the wake latch and the abort redirect (seed 000 "复杂场景一", "abort 后的 next-step 消息",
// "splice observer 导致的 reentrant cancel"; seed 003 §11–§12; SPEC §4).
import { describe, expect, it } from 'vitest'
import type { ScriptedEntry } from '@bosun/adapter-scripted'
import { Inbox } from '../inbox/inbox.js'
import type { InboxSplice } from '../inbox/types.js'
import type { PreStepDecision } from '../hooks.js'
import type { ModelAdapter, ModelChunk, ModelRequest } from '../model.js'
import { insertionOf, is, nextEvent, settle, statuses, turnBoundaries } from '../testing/agent-probes.js'
import { gate, harness, msg, pausingTap } from '../testing/harness.js'
import { scripted } from '@bosun/adapter-scripted'
import { blockingTool, tool } from '../testing/tools.js'
import { formatTimeline } from '../session/timeline.js'
import type { Agent } from './agent.js'

/**
 * A harness whose first model call runs a tool that waits for `release()` (and ignores the abort).
 * `started` resolves once the tool body is running.
 */
async function busyAgent(responses: ScriptedEntry[] = []) {
  const wait = blockingTool()
  const h = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }, ...responses] })
  return { ...h, release: wait.release, started: wait.started }
}

/** The timeline from the first line equal to `line` on. */
function from(text: string, line: string): string[] {
  const lines = text.split('\n')
  const index = lines.indexOf(line)
  if (index < 0) throw new Error(`no line ${line}`)
  return lines.slice(index)
}

describe('abort', () => {
  it('mid-stream keeps the delivered prefix as an interrupted assistant message; step and turn end aborted', async () => {
    const { agent, adapter, timeline } = await harness({ responses: [{ text: 'hello world', chunkSize: 1, delayMs: 1 }] })
    let chunks = 0
    agent.session.subscribe((event) => {
      if (event.type === 'assistant/chunk' && ++chunks === 3) agent.abort()
    })
    agent.followup('talk')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["talk"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "talk"
      assistant/message "hel" interrupted
      step/end 1.1 aborted
      turn/end 1 aborted"
    `)
    expect(agent.surface.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hel' }] })
    expect(adapter.requests).toBe(1)
    expect(agent.status).toBe('idle')
  })

  it('an adapter that ignores the abort signal cannot hang the turn: it ends aborted with the prefix', async () => {
    const stuck: ModelAdapter = {
      name: 'stuck',
      stream: () =>
        (async function* (): AsyncGenerator<ModelChunk> {
          yield { type: 'text-delta', text: 'partial' }
          await new Promise(() => {}) // never resumes, never looks at the signal
        })(),
    }
    const { agent, timeline } = await harness({ model: stuck })
    agent.session.subscribe((event) => {
      if (event.type === 'assistant/chunk') agent.abort()
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-3)).toEqual(['assistant/message "partial" interrupted', 'step/end 1.1 aborted', 'turn/end 1 aborted'])
  })

  it('records the abort reason on turn/end', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'abc', chunkSize: 1, delayMs: 1 }] })
    agent.session.subscribe((event) => {
      if (event.type === 'assistant/chunk') agent.abort('user pressed Ctrl+C')
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-3)).toMatchInlineSnapshot(`
      [
        "assistant/message "a" interrupted",
        "step/end 1.1 aborted",
        "turn/end 1 aborted (user pressed Ctrl+C)",
      ]
    `)
    expect(agent.session.last!.data).toEqual({ turn: 1, reason: { kind: 'aborted', reason: 'user pressed Ctrl+C' } })
  })

  it('before any chunk arrives writes no assistant message', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'never', delayMs: 1 }] })
    const header = nextEvent(agent, is('request/header'))
    agent.followup('go')
    await header
    agent.abort()
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      step/end 1.1 aborted
      turn/end 1 aborted"
    `)
  })

  it('while idle is a no-op: nothing is written and the status stays idle', async () => {
    const { agent } = await harness()
    const seen = statuses(agent)
    agent.abort()
    agent.abort('again')
    await settle()
    expect(agent.session.length).toBe(0)
    expect(seen).toEqual([])
  })

  it('rejects a non-string reason with INVALID_ARGUMENT', async () => {
    const { agent } = await harness()
    expect(() => agent.abort(42 as unknown as string)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }))
  })

  it('parks follow-ups queued before it: no further turn runs, and the parked ones run first (FIFO) at the next wake', async () => {
    const { agent, release, started, timeline } = await busyAgent()
    agent.followup('one')
    await started
    agent.followup('two')
    agent.followup('three')
    agent.abort()
    release()
    await agent.whenIdle()
    await settle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
    expect(agent.inbox.nextTurn.map((m) => m.content[0])).toEqual([
      { type: 'text', text: 'two' },
      { type: 'text', text: 'three' },
    ])
    const before = agent.session.length
    agent.followup('four')
    await agent.whenIdle()
    expect(from(timeline(), 'turn/end 1 aborted')).toMatchInlineSnapshot(`
      [
        "turn/end 1 aborted",
        "splice next-turn @2 +["four"]",
        "turn/start 2",
        "splice next-turn @0 -1",
        "step/start 2.1",
        "user/message "two"",
        "assistant/message "echo: two"",
        "step/end 2.1 stop",
        "turn/end 2 completed",
        "turn/start 3",
        "splice next-turn @0 -1",
        "step/start 3.1",
        "user/message "three"",
        "assistant/message "echo: three"",
        "step/end 3.1 stop",
        "turn/end 3 completed",
        "turn/start 4",
        "splice next-turn @0 -1",
        "step/start 4.1",
        "user/message "four"",
        "assistant/message "echo: four"",
        "step/end 4.1 stop",
        "turn/end 4 completed",
      ]
    `)
    expect(agent.session.length).toBeGreaterThan(before)
  })

  it('leaves next-step messages queued before it in next-step, where they ride the first step of the next turn', async () => {
    const { agent, release, started, timeline } = await busyAgent()
    agent.followup('one')
    await started
    agent.steer('steer before abort')
    agent.abort()
    release()
    await agent.whenIdle()
    expect(insertionOf(agent, agent.inbox.nextStep[0]!.id).target).toBe('next-step')
    agent.followup('next')
    await agent.whenIdle()
    expect(from(timeline(), 'turn/end 1 aborted')).toMatchInlineSnapshot(`
      [
        "turn/end 1 aborted",
        "splice next-turn @0 +["next"]",
        "turn/start 2",
        "splice next-step @0 -1",
        "splice next-turn @0 -1",
        "step/start 2.1",
        "user/message "steer before abort"",
        "user/message "next"",
        "assistant/message "echo: next"",
        "step/end 2.1 stop",
        "turn/end 2 completed",
      ]
    `)
  })

  it('a step-free abort (during the pre-step waterfall) ends the turn aborted without step/start', async () => {
    const slowAuth = pausingTap<PreStepDecision>()
    const { agent, adapter, timeline } = await harness()
    agent.hooks.preStep.tapPromise('slow-auth', slowAuth.tap)
    agent.followup('go')
    await slowAuth.entered
    agent.abort()
    slowAuth.release()
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      turn/end 1 aborted"
    `)
    expect(adapter.requests).toBe(0)
  })

  it('during prepareCall ends the open step aborted and never calls the adapter', async () => {
    const router = pausingTap<ModelRequest>()
    const { agent, adapter, timeline } = await harness()
    agent.hooks.prepareCall.tapPromise('router', router.tap)
    agent.followup('go')
    await router.entered
    agent.abort()
    router.release()
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      step/end 1.1 aborted
      turn/end 1 aborted"
    `)
    expect(adapter.requests).toBe(0)
  })

  it('right after a waking send (the phase is already running) aborts that phase: the model is never called', async () => {
    // SPEC §4: "A wake from idle creates a running phase with a fresh AbortController"; seed 003 §5:
    // "空闲时 wake 会同步把 phase 预留为 running". The status already says running, so abort() must reach it.
    const { agent, adapter } = await harness()
    agent.followup('go')
    expect(agent.status).toBe('running')
    agent.abort()
    await agent.whenIdle()
    expect(adapter.requests).toBe(0)
    expect(agent.session.events.filter(is('step/start'))).toHaveLength(0)
    expect(agent.session.events.filter(is('assistant/message'))).toHaveLength(0)
  })
})

describe('abort does not wait for a hook that ignores the signal (seed 000)', () => {
  const never = () => new Promise<never>(() => {})
  const lastLines = (agent: Agent, n: number) => formatTimeline(agent.session.events, { requests: false }).split('\n').slice(-n)

  it('a pre-step tap that never settles: abort() ends the turn aborted at once, and close() returns', async () => {
    const { agent } = await harness()
    agent.hooks.preStep.tapPromise('stuck-policy', never)
    agent.followup('hi')
    await nextEvent(agent, (e) => e.type === 'agent/inbox/spliced' && (e.data as { removedCount?: number }).removedCount === 1)
    await settle()
    agent.abort()
    await agent.whenIdle()
    expect(lastLines(agent, 1)).toEqual(['turn/end 1 aborted'])
    await agent.close()
  })

  it('a system prompt function, a prepareCall tap or an llm/stream tap that never settles: the turn ends aborted', async () => {
    for (const stick of [
      (agent: Agent) => agent.hooks.prepareCall.tapPromise('stuck-router', never),
      (agent: Agent) => agent.hooks.llmStream.tapPromise('stuck-wrapper', never),
    ]) {
      const { agent } = await harness()
      stick(agent)
      agent.followup('hi')
      await nextEvent(agent, (e) => e.type === 'step/start')
      await settle()
      agent.abort()
      await agent.whenIdle()
      expect(lastLines(agent, 2)).toEqual(['step/end 1.1 aborted', 'turn/end 1 aborted'])
      await agent.close()
    }
    const { agent } = await harness({ system: never })
    agent.followup('hi')
    await nextEvent(agent, (e) => e.type === 'turn/start')
    await settle()
    agent.abort()
    await agent.whenIdle()
    expect(lastLines(agent, 1)).toEqual(['turn/end 1 aborted'])
  })

  it('a tool/result tap that never settles: after the grace period the result is an error that does not show the raw content', async () => {
    const { agent } = await harness({ responses: [{ toolCalls: [{ name: 'secret', args: {} }] }], tools: [tool('secret', () => 'raw secret content')] })
    agent.hooks.toolResult.tapPromise('stuck-redactor', never)
    agent.followup('hi')
    await nextEvent(agent, (e) => e.type === 'tool/call')
    await settle()
    agent.abort()
    await agent.whenIdle()
    const result = agent.session.events.find((e) => e.type === 'tool/result')!.data as { content: unknown; isError?: boolean }
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).not.toContain('raw secret content')
    expect(JSON.stringify(result.content)).toContain('tool/result hook did not finish')
    expect(lastLines(agent, 1)).toEqual(['turn/end 1 aborted'])
  })
})

describe('abort redirect and the wake latch', () => {
  it('a follow-up sent after abort() but before the driver retires is latched and runs after the aborted turn, on the same single driver', async () => {
    const { agent, release, started, timeline } = await busyAgent()
    agent.followup('one')
    await started
    agent.abort()
    const second = agent.followup('two')
    expect(insertionOf(agent, second.id).target).toBe('next-turn')
    release()
    await agent.whenIdle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
    expect(timeline().split('\n').slice(6)).toMatchInlineSnapshot(`
      [
        "tool/call wait {}",
        "splice next-turn @0 +["two"]",
        "tool/result wait "waited"",
        "step/end 1.1 aborted",
        "turn/end 1 aborted",
        "turn/start 2",
        "splice next-turn @0 -1",
        "step/start 2.1",
        "user/message "two"",
        "assistant/message "echo: two"",
        "step/end 2.1 stop",
        "turn/end 2 completed",
      ]
    `)
  })

  it('a steer after abort() is redirected to next-turn (decided before the splice) and runs after the aborted turn', async () => {
    const { agent, release, started, timeline } = await busyAgent()
    agent.followup('one')
    await started
    agent.abort()
    const steer = agent.steer('redirected')
    expect(insertionOf(agent, steer.id)).toMatchObject({ target: 'next-turn' })
    release()
    await agent.whenIdle()
    expect(timeline().split('\n').slice(6)).toMatchInlineSnapshot(`
      [
        "tool/call wait {}",
        "splice next-turn @0 +["redirected"]",
        "tool/result wait "waited"",
        "step/end 1.1 aborted",
        "turn/end 1 aborted",
        "turn/start 2",
        "splice next-turn @0 -1",
        "step/start 2.1",
        "user/message "redirected"",
        "assistant/message "echo: redirected"",
        "step/end 2.1 stop",
        "turn/end 2 completed",
      ]
    `)
  })

  it('an inject after abort() keeps its next-step target and does not wake: it rides the next turn', async () => {
    // SPEC §4 and the seeds' code (seed 000 `send`: `(this.activity?.aborted && wakeup) ? 'next-turn' : queue`;
    // seed 003 §12: "此后新的 waking send → 强制 next-turn"): only a WAKING send is redirected. Seed
    // 000's prose also redirects inject; its code and seed 003 do not, and those are followed.
    const { agent, release, started } = await busyAgent()
    agent.followup('one')
    await started
    agent.abort()
    const injected = agent.inject('after abort')
    release()
    await agent.whenIdle()
    await settle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
    expect(insertionOf(agent, injected.id).target).toBe('next-step')
    expect(agent.inbox.nextStep.map((m) => m.id)).toEqual([injected.id])
    agent.followup('later')
    await agent.whenIdle()
    const stepped = agent.session.events.filter(is('user/message')).map((e) => (e.data as { id: string }).id)
    expect(stepped.slice(-2)).toEqual([injected.id, stepped.at(-1)]) // next-step first, in the next turn
  })

  it('a steer from a session observer reacting to turn/end aborted is redirected to next-turn and runs after', async () => {
    const { agent, release, started, timeline } = await busyAgent()
    let steered: string | undefined
    agent.session.subscribe((event) => {
      if (event.type === 'turn/end' && (event.data as { reason: { kind: string } }).reason.kind === 'aborted' && !steered) {
        steered = agent.steer('observer steer').id
      }
    })
    agent.followup('one')
    await started
    agent.abort()
    release()
    await agent.whenIdle()
    expect(insertionOf(agent, steered!).target).toBe('next-turn')
    expect(timeline().split('\n').slice(9)).toMatchInlineSnapshot(`
      [
        "turn/end 1 aborted",
        "splice next-turn @0 +["observer steer"]",
        "turn/start 2",
        "splice next-turn @0 -1",
        "step/start 2.1",
        "user/message "observer steer"",
        "assistant/message "echo: observer steer"",
        "step/end 2.1 stop",
        "turn/end 2 completed",
      ]
    `)
  })

  it('a steer sent from the abort itself (a tool\'s abort listener) is redirected to next-turn and runs after', async () => {
    const release = gate()
    let steered: string | undefined
    const wait = tool('wait', async (_args, { signal }) => {
      signal.addEventListener('abort', () => {
        steered = agentRef.steer('from abort listener').id
      })
      await release.promise
      return 'waited'
    })
    const { agent, timeline } = await harness({ tools: [wait], responses: [{ toolCalls: [{ name: 'wait' }] }] })
    const agentRef = agent
    const started = nextEvent(agent, is('tool/call'))
    agent.followup('one')
    await started
    await settle()
    agent.abort()
    release.open()
    await agent.whenIdle()
    expect(insertionOf(agent, steered!).target).toBe('next-turn')
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
    expect(timeline()).toContain('user/message "from abort listener"')
  })

  it('a cancel from a splice observer does not reclassify the send that triggered it, and the log still replays to the live inbox', async () => {
    const { agent, release, started } = await busyAgent()
    agent.followup('one')
    await started
    agent.inject(msg('earlier context'))
    const trigger = msg('steer that triggers cancel')
    agent.session.subscribe((event) => {
      if (event.type === 'agent/inbox/spliced' && (event.data as InboxSplice).inserted.some((m) => m.id === trigger.id)) {
        agent.cancel()
      }
    })
    agent.steer(trigger)
    expect(insertionOf(agent, trigger.id).target).toBe('next-step')
    release()
    await agent.whenIdle()
    const replayed = new Inbox(agent.session)
    expect(replayed.nextStep.map((m) => m.id)).toEqual(agent.inbox.nextStep.map((m) => m.id))
    expect(replayed.nextTurn.map((m) => m.id)).toEqual(agent.inbox.nextTurn.map((m) => m.id))
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
  })
})

describe('cancel', () => {
  it('tells agent/canceled observers after the inbox is cleared, even when idle and empty; not with keepInbox; a throwing observer does not stop the next', async () => {
    const { agent } = await harness()
    const told: boolean[] = []
    const errors: string[] = []
    agent.hooks.error.tap('test', (_error, context) => void errors.push(context))
    agent.hooks.canceled.tap('fragile', () => {
      throw new Error('observer broke')
    })
    agent.hooks.canceled.tap('test', () => void told.push(agent.inbox.hasPending))
    agent.inject('pending')
    agent.cancel({ keepInbox: true })
    expect(told).toEqual([])
    agent.cancel()
    agent.cancel() // idle, nothing pending: still told
    expect(told).toEqual([false, false])
    expect(errors).toEqual(['"fragile" observing agent/canceled', '"fragile" observing agent/canceled'])
  })

  it('aborts and cancels all pending input: next-step first, then next-turn, each one canceled splice; no further turn runs', async () => {
    const { agent, release, started, timeline } = await busyAgent()
    const discarded: string[] = []
    agent.hooks.inboxDiscarded.tap('test', (message, target) => void discarded.push(`${message.id}:${target}`))
    agent.followup('one')
    await started
    agent.followup(msg('t1'))
    agent.followup(msg('t2'))
    agent.steer(msg('s1'))
    agent.cancel()
    release()
    await agent.whenIdle()
    await settle()
    expect(timeline().split('\n').slice(6)).toMatchInlineSnapshot(`
      [
        "tool/call wait {}",
        "splice next-turn @0 +["t1"]",
        "splice next-turn @1 +["t2"]",
        "splice next-step @0 +["s1"]",
        "splice next-step @0 -1 canceled",
        "splice next-turn @0 -2 canceled",
        "tool/result wait "waited"",
        "step/end 1.1 aborted",
        "turn/end 1 aborted (canceled)",
      ]
    `)
    expect(agent.inbox.hasPending).toBe(false)
    expect(discarded).toEqual(['s1:next-step', 't1:next-turn', 't2:next-turn'])
  })

  it('clears the wake latch: a follow-up latched after abort() is canceled with the rest and nothing runs after', async () => {
    const { agent, release, started } = await busyAgent()
    agent.followup('one')
    await started
    agent.abort()
    agent.followup('latched')
    agent.cancel()
    release()
    await agent.whenIdle()
    await settle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
    expect(agent.inbox.hasPending).toBe(false)
  })

  it('a waking send after cancel() (before the driver retires) is redirected to next-turn, latched, and runs after', async () => {
    const { agent, release, started, timeline } = await busyAgent()
    agent.followup('one')
    await started
    agent.cancel()
    const after = agent.steer('after cancel')
    expect(insertionOf(agent, after.id).target).toBe('next-turn')
    release()
    await agent.whenIdle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
    expect(timeline()).toContain('user/message "after cancel"')
  })

  it('with keepInbox parks the pending input: no further turn runs; a later follow-up runs the parked ones first (FIFO), then itself', async () => {
    const { agent, release, started, timeline } = await busyAgent()
    agent.followup('one')
    await started
    agent.followup('two')
    agent.followup('three')
    agent.cancel({ keepInbox: true })
    release()
    await agent.whenIdle()
    await settle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
    expect(agent.inbox.nextTurn).toHaveLength(2)
    expect(agent.session.events.some((e) => e.type === 'agent/inbox/spliced' && (e.data as InboxSplice).outcome === 'canceled')).toBe(false)
    agent.followup('four')
    await agent.whenIdle()
    const users = agent.session.events.filter(is('user/message')).map((e) => (e.data as { content: { text: string }[] }).content[0]!.text)
    expect(users).toEqual(['one', 'two', 'three', 'four'])
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3', 'start 4', 'end 4'])
    expect(timeline()).toContain('turn/end 1 aborted (canceled)')
  })

  it('while idle cancels parked input durably', async () => {
    const { agent, timeline } = await harness()
    agent.inject('a')
    agent.inject('b')
    agent.cancel()
    expect(agent.inbox.hasPending).toBe(false)
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-step @0 +["a"]
      splice next-step @1 +["b"]
      splice next-step @0 -2 canceled"
    `)
    await settle()
    expect(agent.session.events.filter(is('turn/start'))).toHaveLength(0)
  })

  it('rejects options that are not an object with INVALID_ARGUMENT', async () => {
    const { agent } = await harness()
    expect(() => agent.cancel(null as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }))
  })
})

describe('each turn its own AbortController (seed 003: the driver "switches to a new AbortController" after each turn)', () => {
  /** `grab` keeps its turn's signal and returns; `wait` keeps it and returns once it aborts. */
  function signalKeepers() {
    const signals: AbortSignal[] = []
    const grab = tool('grab', (_args, { signal }) => {
      signals.push(signal)
      return 'ok'
    })
    const wait = tool('wait', async (_args, { signal }) => {
      signals.push(signal)
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
      return 'stopped'
    })
    return { signals, grab, wait }
  }

  it('consecutive turns, in one run and across wakes, get distinct signals; aborting a later turn never reaches an earlier one', async () => {
    const { signals, grab, wait } = signalKeepers()
    const { agent } = await harness({
      tools: [grab, wait],
      responses: [{ toolCalls: [{ name: 'grab' }] }, { text: 'one' }, { toolCalls: [{ name: 'grab' }] }, { text: 'two' }, { toolCalls: [{ name: 'wait' }] }],
    })
    agent.followup('first')
    agent.followup('second') // same run: the driver takes it right after turn 1
    await agent.whenIdle()
    agent.followup('third') // a new wake from idle; its tool waits for the abort
    while (signals.length < 3) await new Promise((resolve) => setTimeout(resolve, 1))
    expect(new Set(signals).size).toBe(3)
    // Aborting turn 3 reaches turn 3 only: what turns 1 and 2 left running keeps its signal.
    agent.abort('stop turn 3')
    await agent.whenIdle()
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false, true])
  })

  it('a cancel() in turn 2 does not abort the signal turn 1 handed out and its work kept', async () => {
    const { signals: kept, grab, wait } = signalKeepers()
    const { agent, timeline } = await harness({
      tools: [grab, wait],
      responses: [{ toolCalls: [{ name: 'grab' }] }, { text: 'one' }, { toolCalls: [{ name: 'wait' }] }],
    })
    agent.followup('first')
    agent.followup('second')
    while (kept.length < 2) await new Promise((resolve) => setTimeout(resolve, 1))
    agent.cancel()
    await agent.whenIdle()
    expect(kept.map((signal) => [signal.aborted, signal.reason])).toEqual([[false, undefined], [true, 'canceled']])
    expect(timeline().split('\n').slice(-1)).toEqual(['turn/end 2 aborted (canceled)'])
  })
})

// Whenever the turn's signal is first read — late, or never by the adapter — it is that turn's own
// (these hold for a controller made when the turn opens, and must hold for one made lazily).
describe('a turn\'s signal, whenever it is first read', () => {
  /** The scripted model behind an adapter that never reads the signal (as one that never waits). */
  const signalBlind = (responses: ScriptedEntry[]): ModelAdapter => {
    const inner = scripted({ responses })
    return { name: 'signal-blind', stream: (request) => inner.stream(request, {} as never) }
  }

  it('an abort before anyone read the signal: the signal read afterwards is already aborted, with the reason', async () => {
    const seen: [boolean, unknown][] = []
    const reading = gate()
    const running = gate()
    const late = tool('late', async (_args, context) => {
      running.open()
      await reading.promise // aborted while waiting, without having looked at the signal
      seen.push([context.signal.aborted, context.signal.reason])
      return 'done'
    })
    const { agent, timeline } = await harness({ model: signalBlind([{ toolCalls: [{ name: 'late' }] }]), tools: [late] })
    agent.followup('go')
    await running.promise
    agent.abort('stop')
    reading.open()
    await agent.whenIdle()
    expect(seen).toEqual([[true, 'stop']])
    expect(timeline().split('\n').slice(-2)).toEqual(['step/end 1.1 aborted', 'turn/end 1 aborted (stop)'])
  })

  it('an abort from turn 1\'s turn/end observer never reaches turn 2: its signal is fresh and unaborted', async () => {
    const seen: [number, boolean][] = []
    const look = tool('look', (_args, { signal, turn }) => {
      seen.push([turn, signal.aborted])
      return 'looked'
    })
    const { agent, timeline } = await harness({
      model: signalBlind([{ text: 'one' }, { toolCalls: [{ name: 'look' }] }, { text: 'two' }]),
      tools: [look],
    })
    const stop = agent.session.subscribe((event) => {
      if (event.type !== 'turn/end') return
      stop()
      agent.abort('late') // turn 1's controller, after its turn ended; nothing read its signal
      agent.followup('again') // a waking send after the abort: latched, runs as turn 2
    })
    agent.followup('first')
    await agent.whenIdle()
    expect(seen).toEqual([[2, false]])
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
    expect(timeline().includes('aborted')).toBe(false)
  })

  it('a turn that never reads its signal still ends aborted at once when a hook ignores the abort', async () => {
    const stuck = pausingTap<PreStepDecision>()
    const { agent, timeline } = await harness({ model: signalBlind([{ text: 'never' }]) })
    agent.hooks.preStep.tapPromise('stuck', stuck.tap)
    agent.followup('go')
    await stuck.entered
    agent.abort('stop')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-1)).toEqual(['turn/end 1 aborted (stop)'])
  })
})
