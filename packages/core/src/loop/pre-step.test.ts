// The pre-step: claim → system prompt → `agent/pre-step` waterfall → enter | reject
// (seed 000 "第五步/第六步", "复杂场景六"; seed 003 §8, §14; SPEC §4–§5).
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import type { PreStepContext, PreStepDecision } from '../hooks.js'
import { Stage } from '../hooks.js'
import { foldConsumedWork } from '../inbox/consumed-work.js'
import { definePlugin } from '../plugin.js'
import { createUserMessage, messageText, type UserMessage } from '../session/messages.js'
import { memoryStore } from '../store/memory.js'
import { settle, statuses, turnBoundaries } from '../testing/agent-probes.js'
import { gate, harness, msg } from '../testing/harness.js'
import { loggingStore } from '../testing/stores.js'
import { blockingTool, tool } from '../testing/tools.js'

const texts = (messages: readonly { content: readonly { type: string }[] }[]) => messages.map((m) => messageText(m))

/** A plugin that rejects every step whose messages contain `word`. */
const blocker = definePlugin<{ word: string }>({
  name: 'blocker',
  schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'], additionalProperties: false },
  setup({ hooks }, { word }) {
    hooks.preStep.tapPromise('blocker', async (decision) =>
      decision.kind === 'enter' && decision.messages.some((m) => messageText(m).includes(word))
        ? { kind: 'reject', metadata: { word, retry: false } }
        : decision,
    )
  },
})

describe('enter', () => {
  it('admits the claimed messages: the waterfall sees next-step first, then the next-turn head, with turn, step, signal and the system prompt', async () => {
    const { agent } = await harness({ system: 'You are terse.' })
    const seen: { decision: PreStepDecision; context: Omit<PreStepContext, 'session' | 'inbox' | 'signal' | 'surface'>; aborted: boolean }[] = []
    agent.hooks.preStep.tap('spy', (decision, context) => {
      seen.push({
        decision,
        context: { turn: context.turn, step: context.step, claimed: context.claimed, system: context.system },
        aborted: context.signal.aborted,
      })
      return decision
    })
    agent.inject(msg('ctx'))
    agent.followup(msg('ask'))
    await agent.whenIdle()
    expect(seen).toHaveLength(1)
    expect(seen[0]!.decision.kind).toBe('enter')
    expect(texts((seen[0]!.decision as { messages: readonly UserMessage[] }).messages)).toEqual(['ctx', 'ask'])
    expect(texts(seen[0]!.context.claimed)).toEqual(['ctx', 'ask'])
    expect(seen[0]!.context).toMatchObject({ turn: 1, step: 1, system: 'You are terse.' })
    expect(seen[0]!.aborted).toBe(false)
  })

  it('runs before every step; a later step sees only what next-step held (here nothing)', async () => {
    const wait = tool('noop', () => 'done')
    const { agent } = await harness({ tools: [wait], responses: [{ toolCalls: [{ name: 'noop' }] }, { text: 'end' }] })
    const steps: string[] = []
    agent.hooks.preStep.tap('spy', (decision, { turn, step, claimed }) => {
      steps.push(`${turn}.${step}: ${texts(claimed).join(',') || '-'}`)
      return decision
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(steps).toEqual(['1.1: go', '1.2: -'])
  })

  it('may rewrite the messages: the step logs and sends the rewritten ones, while the claim records what was taken', async () => {
    const model = scripted({ record: true })
    const { agent, timeline } = await harness({ model })
    agent.hooks.preStep.tap('redact', (decision) =>
      decision.kind === 'enter'
        ? { kind: 'enter', messages: decision.messages.map((m) => createUserMessage(messageText(m).replace(/\d{4}/g, '####'), { id: m.id })) }
        : decision,
    )
    agent.followup('card 1234 please')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["card 1234 please"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "card #### please"
      assistant/message "echo: card #### please"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
    expect(texts(model.recorded[0]!.messages.filter((m) => m.role === 'user') as never[])).toEqual(['card #### please'])
  })

  it('may add a message: every admitted message gets its own user/message, in the decided order', async () => {
    const { agent, timeline } = await harness()
    agent.hooks.preStep.tap('preamble', (decision) =>
      decision.kind === 'enter'
        ? { kind: 'enter', messages: [createUserMessage('house rules', { source: { kind: 'policy' } }), ...decision.messages] }
        : decision,
    )
    agent.followup('hi')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(3, 6)).toMatchInlineSnapshot(`
      [
        "step/start 1.1",
        "user/message "house rules" (policy)",
        "user/message "hi"",
      ]
    `)
  })

  it('assembles the system prompt per step from a function of turn and step, before the waterfall', async () => {
    const model = scripted({ record: true, responses: [{ toolCalls: [{ name: 'noop' }] }, { text: 'done' }] })
    const systems: string[] = []
    const { agent } = await harness({
      model,
      tools: [tool('noop', () => 'ok')],
      system: ({ turn, step }) => `turn ${turn} step ${step}`,
    })
    agent.hooks.preStep.tap('spy', (decision, { system }) => {
      systems.push(system)
      return decision
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(systems).toEqual(['turn 1 step 1', 'turn 1 step 2'])
    expect(model.recorded.map((r) => r.system)).toEqual(['turn 1 step 1', 'turn 1 step 2'])
  })
})

describe('reject', () => {
  it('ends the turn blocked by the rejecting plugin with its metadata, writes agent/pre-step/rejected and no step/start, and never calls the model', async () => {
    const { agent, adapter, timeline } = await harness({ plugins: [[blocker, { word: 'forbidden' }]] })
    agent.followup('a forbidden word')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["a forbidden word"]
      turn/start 1
      splice next-turn @0 -1
      rejected 1 by=blocker {"word":"forbidden","retry":false}
      turn/end 1 blocked by=blocker {"word":"forbidden","retry":false}"
    `)
    expect(agent.session.last!.data).toEqual({
      turn: 1,
      reason: { kind: 'blocked', by: 'blocker', metadata: { word: 'forbidden', retry: false } },
    })
    expect(adapter.requests).toBe(0)
  })

  it('does not re-queue the rejected message: the claim was the commit point', async () => {
    const { agent } = await harness({ plugins: [[blocker, { word: 'forbidden' }]] })
    const rejected = agent.followup('forbidden')
    await agent.whenIdle()
    await settle()
    expect(agent.inbox.hasPending).toBe(false)
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
    const work = foldConsumedWork(agent.session.events)
    expect(work.turns).toEqual([{ turn: 1, stepped: [], unstepped: [rejected.id], end: 'blocked' }])
  })

  it('the next follow-up runs normally in its own turn', async () => {
    const { agent, timeline } = await harness({ plugins: [[blocker, { word: 'forbidden' }]] })
    const seen = statuses(agent)
    agent.followup('forbidden thing')
    agent.followup('fine thing')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["forbidden thing"]
      splice next-turn @1 +["fine thing"]
      turn/start 1
      splice next-turn @0 -1
      rejected 1 by=blocker {"word":"forbidden","retry":false}
      turn/end 1 blocked by=blocker {"word":"forbidden","retry":false}
      turn/start 2
      splice next-turn @0 -1
      step/start 2.1
      user/message "fine thing"
      assistant/message "echo: fine thing"
      step/end 2.1 stop
      turn/end 2 completed"
    `)
    expect(seen).toEqual(['running', 'idle'])
  })

  it('in a later step (after tools) ends the turn blocked after the completed step, with no second step/start', async () => {
    const wait = blockingTool()
    const { agent, adapter, timeline } = await harness({
      tools: [wait.tool],
      plugins: [[blocker, { word: 'forbidden' }]],
      responses: [{ toolCalls: [{ name: 'wait' }] }, { text: 'never' }],
    })
    const running = new Promise<void>((resolve) => agent.session.subscribe((e) => e.type === 'tool/call' && resolve()))
    agent.followup('fine')
    await running
    agent.steer('now something forbidden')
    wait.release()
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["fine"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "fine"
      assistant/message wait({})
      tool/call wait {}
      splice next-step @0 +["now something forbidden"]
      tool/result wait "waited"
      step/end 1.1 tool-calls
      splice next-step @0 -1
      rejected 1 by=blocker {"word":"forbidden","retry":false}
      turn/end 1 blocked by=blocker {"word":"forbidden","retry":false}"
    `)
    expect(adapter.requests).toBe(1)
  })

  it('keeps an explicit `by` given by the tap', async () => {
    const { agent, timeline } = await harness()
    agent.hooks.preStep.tap('wrapper', () => ({ kind: 'reject', by: 'upstream-policy', metadata: null }))
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-2)).toEqual(['rejected 1 by=upstream-policy null', 'turn/end 1 blocked by=upstream-policy null'])
  })

  it('records metadata null when the reject gives none', async () => {
    const { agent } = await harness()
    agent.hooks.preStep.tapPromise('quiet', async () => ({ kind: 'reject' }))
    agent.followup('x')
    await agent.whenIdle()
    expect(agent.session.last!.data).toEqual({ turn: 1, reason: { kind: 'blocked', by: 'quiet', metadata: null } })
  })

  it('the first reject ends the chain: later taps are not called', async () => {
    const { agent } = await harness()
    const called: string[] = []
    agent.hooks.preStep.tap('first', (decision) => {
      called.push('first')
      return decision
    })
    agent.hooks.preStep.tap('rejecter', () => {
      called.push('rejecter')
      return { kind: 'reject', metadata: { why: 'test' } }
    })
    agent.hooks.preStep.tapPromise('after-async', async (decision) => {
      called.push('after-async')
      return decision
    })
    agent.hooks.preStep.tapAsync('after-callback', (decision, _context, callback) => {
      called.push('after-callback')
      callback(null, decision)
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(called).toEqual(['first', 'rejecter'])
    expect(agent.session.last!.data).toMatchObject({ reason: { kind: 'blocked', by: 'rejecter' } })
  })

  it('a plugin can re-queue a rejected message itself; it then runs as a new turn', async () => {
    let rejectedOnce = false
    const retryLater = definePlugin({
      name: 'retry-later',
      setup({ hooks, agent }) {
        hooks.preStep.tapPromise('retry-later', async (decision) => {
          if (decision.kind !== 'enter' || rejectedOnce) return decision
          rejectedOnce = true
          const [message] = decision.messages
          queueMicrotask(() => agent.followup(createUserMessage(messageText(message!), { id: `${message!.id}-retry` })))
          return { kind: 'reject', metadata: { retrying: true } }
        })
      },
    })
    const { agent, timeline } = await harness({ plugins: [retryLater] })
    agent.followup(msg('hello'))
    await agent.whenIdle()
    await settle()
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hello"]
      turn/start 1
      splice next-turn @0 -1
      splice next-turn @0 +["hello"]
      rejected 1 by=retry-later {"retrying":true}
      turn/end 1 blocked by=retry-later {"retrying":true}
      turn/start 2
      splice next-turn @0 -1
      step/start 2.1
      user/message "hello"
      assistant/message "echo: hello"
      step/end 2.1 stop
      turn/end 2 completed"
    `)
  })
})

describe('taps and plugins', () => {
  it('runs taps in ascending stage, equal stages in registration order', async () => {
    const { agent } = await harness()
    const order: string[] = []
    const spy = (name: string) => (decision: PreStepDecision) => {
      order.push(name)
      return decision
    }
    agent.hooks.preStep.tap({ name: 'late', stage: Stage.late }, spy('late'))
    agent.hooks.preStep.tap('normal-1', spy('normal-1'))
    agent.hooks.preStep.tap({ name: 'first', stage: Stage.first }, spy('first'))
    agent.hooks.preStep.tap('normal-2', spy('normal-2'))
    agent.hooks.preStep.tap({ name: 'early', stage: Stage.early }, spy('early'))
    agent.followup('x')
    await agent.whenIdle()
    expect(order).toEqual(['first', 'early', 'normal-1', 'normal-2', 'late'])
  })

  it('sets plugins up in config order with their validated options', async () => {
    const order: string[] = []
    const make = (name: string) =>
      definePlugin<{ n: number }>({
        name,
        schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
        setup({ hooks, name: own }, options) {
          order.push(`setup ${own} ${JSON.stringify(options)}`)
          hooks.preStep.tap(own, (decision) => {
            order.push(`tap ${own}`)
            return decision
          })
        },
      })
    const { agent } = await harness({ plugins: [[make('zeta'), { n: 1 }], make('alpha'), [make('mid'), { n: 3 }]] })
    agent.followup('x')
    await agent.whenIdle()
    expect(order).toEqual(['setup zeta {"n":1}', 'setup alpha {}', 'setup mid {"n":3}', 'tap zeta', 'tap alpha', 'tap mid'])
  })

  it('refuses invalid plugin options with PLUGIN_OPTIONS_INVALID naming the plugin and the JSON path, before any setup and without creating a session', async () => {
    let setups = 0
    const limiter = definePlugin<{ turnsPerMinute: number }>({
      name: 'limiter',
      schema: {
        type: 'object',
        properties: { turnsPerMinute: { type: 'integer', minimum: 1 } },
        required: ['turnsPerMinute'],
        additionalProperties: false,
      },
      setup() {
        setups++
      },
    })
    const other = definePlugin({ name: 'other', setup: () => void setups++ })
    const store = memoryStore()
    const attempt = createAgent({ model: scripted(), store, sessionId: 'never', plugins: [other, [limiter, { turnsPerMinute: 0 }]] })
    await expect(attempt).rejects.toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID' })
    const error = (await attempt.catch((e: unknown) => e)) as Error
    expect(error.message).toContain('limiter')
    expect(error.message).toContain('$.turnsPerMinute')
    expect(setups).toBe(0)
    expect(await store.list()).toEqual([])
    expect(await store.open('never')).toBeUndefined()
  })

  it('a throwing pre-step tap ends the turn with PLUGIN_HOOK_FAILED naming plugin and hook; pending input stays parked until the next wake', async () => {
    const entered = gate()
    const release = gate()
    const { agent, adapter, timeline } = await harness()
    const seen = statuses(agent)
    agent.hooks.preStep.tapPromise('flaky', async (decision, { turn }) => {
      if (turn !== 1) return decision
      entered.open()
      await release.promise
      throw new Error('auth service down')
    })
    agent.followup('one')
    await entered.promise
    agent.followup('two')
    release.open()
    await agent.whenIdle()
    await settle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["one"]
      turn/start 1
      splice next-turn @0 -1
      splice next-turn @0 +["two"]
      turn/end 1 error PLUGIN_HOOK_FAILED"
    `)
    const reason = (agent.session.last!.data as { reason: { kind: string; error: { code: string; message: string } } }).reason
    expect(reason.error.message).toContain('"flaky"')
    expect(reason.error.message).toContain('"agent/pre-step"')
    expect(reason.error.message).toContain('auth service down')
    expect(agent.inbox.nextTurn.map((m) => messageText(m))).toEqual(['two'])
    expect(seen).toEqual(['running', 'idle'])
    expect(adapter.requests).toBe(0)

    agent.followup('three')
    await agent.whenIdle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'])
    expect(
      agent.session.events.filter((e) => e.type === 'user/message').map((e) => messageText(e.data as never)),
    ).toEqual(['two', 'three'])
  })

  it('a decision of the wrong shape ends the turn with INVALID_HOOK_RESULT', async () => {
    const { agent, timeline } = await harness()
    agent.hooks.preStep.tap('broken', () => ({ kind: 'maybe' }) as never)
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline().split('\n').at(-1)).toBe('turn/end 1 error INVALID_HOOK_RESULT')
  })

  it('a system prompt function that throws ends the turn with an error before any step', async () => {
    const { agent, adapter, timeline } = await harness({
      system: () => {
        throw new Error('template missing')
      },
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["x"]
      turn/start 1
      splice next-turn @0 -1
      turn/end 1 error UNEXPECTED"
    `)
    expect((agent.session.last!.data as { reason: { error: { message: string } } }).reason.error.message).toContain('template missing')
    expect(adapter.requests).toBe(0)
  })
})

describe('durability', () => {
  it('flushes the enqueue, turn/start and the claim at the first pre-step checkpoint, before the waterfall runs', async () => {
    // Seed 003 §14: "首个 pre-step checkpoint → flush enqueue + turn/start + claim".
    const log: string[] = []
    const store = loggingStore(log)
    const { agent } = await harness({ store })
    agent.hooks.preStep.tap('spy', (decision) => {
      log.push('pre-step')
      return decision
    })
    agent.followup('x')
    await agent.whenIdle()
    const upToPreStep = log.slice(0, log.indexOf('pre-step'))
    const claimAt = upToPreStep.lastIndexOf('append agent/inbox/spliced')
    expect(upToPreStep.slice(0, claimAt + 1)).toEqual(['append agent/inbox/spliced', 'append turn/start', 'append agent/inbox/spliced'])
    expect(upToPreStep.lastIndexOf('flush')).toBeGreaterThan(claimAt)
  })

  it('makes a system prompt function or a prepareCall tap a checkpoint too; with none of them, the claim rides the flush before the model request', async () => {
    const withFunction: string[] = []
    const slowSystem = await harness({
      store: loggingStore(withFunction),
      system: () => {
        withFunction.push('system')
        return 'terse'
      },
    })
    slowSystem.agent.followup('x')
    await slowSystem.agent.whenIdle()
    expect(withFunction.slice(0, withFunction.indexOf('system'))).toEqual([
      'append agent/inbox/spliced', 'append turn/start', 'append agent/inbox/spliced', 'flush',
    ])

    const withPrepareCall: string[] = []
    const tapped = await harness({ store: loggingStore(withPrepareCall) })
    tapped.agent.hooks.prepareCall.tap('spy', (request) => {
      withPrepareCall.push('prepareCall')
      return request
    })
    tapped.agent.followup('x')
    await tapped.agent.whenIdle()
    expect(withPrepareCall.slice(0, withPrepareCall.indexOf('prepareCall'))).toEqual([
      'append agent/inbox/spliced', 'append turn/start', 'append agent/inbox/spliced', 'flush', 'append step/start', 'append user/message',
    ])

    const plain: string[] = []
    const fast = await harness({ store: loggingStore(plain), system: 'terse' })
    fast.agent.followup('x')
    await fast.agent.whenIdle()
    expect(plain.slice(0, plain.indexOf('flush') + 1)).toEqual([
      'append agent/inbox/spliced', 'append turn/start', 'append agent/inbox/spliced',
      'append step/start', 'append user/message', 'append request/context', 'append request/header', 'flush',
    ])
  })
})
