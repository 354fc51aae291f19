import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, createUserMessage, definePlugin, forkSession, formatTimeline, messageText, type SessionEvent, type Tool } from '@bosun/core'
import { expectEntered, expectRejected, testPlugin } from '@bosun/testkit'
import rateLimit from './index.js'

/** The timeline with the waits and times that depend on the clock replaced by `N`, message ids by `ID`. */
const timeline = (events: readonly SessionEvent[]) =>
  formatTimeline(events, { requests: false })
    .replace(/"(retryAfterMs|delayMs|dueAt)":\d+/g, '"$1":N')
    .replace(/"id":"[0-9a-f-]{36}"/g, '"id":ID')

const from = (userId: string, text: string) => createUserMessage(text, { source: { kind: 'user', userId } })
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const noop: Tool = { name: 'noop', description: 'does nothing', parameters: { type: 'object' }, execute: () => 'done' }

/**
 * The agent's clock (`createAgent({ now })`), moved by the test alone. Windows of 200 ms counted
 * on the real clock made the tests depend on the machine: a turn that took longer than the window
 * on a busy machine let the next one in. On this clock no time passes for the limit until the test
 * says so. The waits stay real timers: a delay or a requeue that finds its time not come on this
 * clock waits again (its remaining time, read on this clock, in real ms).
 */
function testClock(): { now: () => number; advance(ms: number): void } {
  let time = 1_764_000_000_000
  return { now: () => time, advance: (ms) => void (time += ms) }
}

/** Until `done()`: waits `stepMs`, then moves `clock` by as much — time passing, for waits that must come due. */
async function passTime(clock: { advance(ms: number): void }, stepMs: number, done: () => boolean, what: string): Promise<void> {
  for (let round = 0; !done(); round++) {
    if (round === 200) throw new Error(`${what}: not after ${round} rounds of ${stepMs} ms`)
    await wait(stepMs)
    clock.advance(stepMs)
  }
}

describe('reject (default)', () => {
  it('ends a turn over the limit blocked with {limit, windowMs, retryAfterMs}; the model never sees it', async () => {
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1 })
    expectEntered(await kit.send('one'), ['one'])
    const turn = await kit.send('two')
    expectRejected(turn, { by: 'rate-limit', metadata: { limit: 1, windowMs: 60_000, counts: 'turns', key: 'session' } })
    const { retryAfterMs } = turn.rejected!.metadata as { retryAfterMs: number }
    expect(retryAfterMs).toBeGreaterThan(55_000)
    expect(retryAfterMs).toBeLessThanOrEqual(60_000)
    expect(kit.model.requests).toBe(1)
    expect(timeline(turn.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["two"]
      turn/start 2
      splice next-turn @0 -1
      rejected 2 by=rate-limit {"limit":1,"windowMs":60000,"retryAfterMs":N,"counts":"turns","burst":1,"key":"session","onLimit":"reject"}
      turn/end 2 blocked by=rate-limit {"limit":1,"windowMs":60000,"retryAfterMs":N,"counts":"turns","burst":1,"key":"session","onLimit":"reject"}"
    `)
  })

  it('counts steps: a tool call that needs a second step over the limit blocks the turn there', async () => {
    const kit = await testPlugin(rateLimit, { stepsPerMinute: 1 }, { tools: [noop], responses: [{ toolCalls: [{ name: 'noop' }] }] })
    const turn = await kit.send('go')
    expect(timeline(turn.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      assistant/message noop({})
      tool/call noop {}
      tool/result noop "done"
      step/end 1.1 tool-calls
      rejected 1 by=rate-limit {"limit":1,"windowMs":60000,"retryAfterMs":N,"counts":"steps","burst":1,"key":"session","onLimit":"reject"}
      turn/end 1 blocked by=rate-limit {"limit":1,"windowMs":60000,"retryAfterMs":N,"counts":"steps","burst":1,"key":"session","onLimit":"reject"}"
    `)
  })

  it('with a burst below the limit, refills one slot per windowMs / limit', async () => {
    // 3 a minute, one at a time: the next slot comes after 20 s, not after the whole minute
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 3, burst: 1 })
    await kit.send('one')
    const { retryAfterMs } = (await kit.send('two')).rejected!.metadata as { retryAfterMs: number }
    expect(retryAfterMs).toBeGreaterThan(15_000)
    expect(retryAfterMs).toBeLessThanOrEqual(20_000)
  })

  it('a rejected turn does not use the allowance', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 300 }, { now: clock.now })
    await kit.send('one')
    clock.advance(200)
    expectRejected(await kit.send('two'))
    clock.advance(100)
    // 'one' has left the window; 'two', 200 ms ago, would still be in it had it counted.
    expectEntered(await kit.send('three'), ['three'])
  })
})

describe('per source', () => {
  it('counts each user on their own, and names the key', async () => {
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, per: 'source' })
    expectEntered(await kit.send(from('ada', 'hi from ada')), ['hi from ada'])
    expectEntered(await kit.send(from('bob', 'hi from bob')), ['hi from bob'])
    expectRejected(await kit.send(from('ada', 'again')), { metadata: { key: 'userId:ada' } })
    // no userId: counted under the source kind
    expectEntered(await kit.send('anonymous'), ['anonymous'])
    expectRejected(await kit.send('anonymous again'), { metadata: { key: 'kind:user' } })
  })

  it('keys by another source field with sourceKey', async () => {
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, per: 'source', sourceKey: 'tenant' })
    const acme = (text: string) => createUserMessage(text, { source: { kind: 'user', tenant: 'acme' } })
    await kit.send(acme('one'))
    expectRejected(await kit.send(acme('two')), { metadata: { key: 'tenant:acme' } })
  })
})

describe('delay', () => {
  it('waits until the window allows the turn, then admits it', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'delay' }, { now: clock.now })
    await kit.send('one')
    const waiting = new Promise<void>((resolve) => kit.agent.hooks.event.tap('test', (e) => e.type === 'rate-limit/delayed' && resolve()))
    const sending = kit.send('two')
    await waiting
    // Time passes only now: admitted before the window allowed it, its step would start less than 200 ms after the first.
    await passTime(clock, 50, () => kit.events.some((e) => e.type === 'turn/end' && (e.data as { turn: number }).turn === 2), 'turn two to end')
    const turn = await sending
    expectEntered(turn, ['two'])
    expect(timeline(turn.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["two"]
      turn/start 2
      splice next-turn @0 -1
      rate-limit/delayed {"turn":2,"step":1,"key":"session","counts":"turns","limit":1,"windowMs":200,"delayMs":N}
      step/start 2.1
      user/message "two"
      assistant/message "echo: two"
      step/end 2.1 stop
      turn/end 2 completed"
    `)
    const delayed = turn.events.find((e) => e.type === 'rate-limit/delayed')!
    const admitted = turn.events.find((e) => e.type === 'step/start')!
    expect(admitted.time - kit.events.find((e) => e.type === 'step/start')!.time).toBeGreaterThanOrEqual(200)
    expect(delayed.ignorable).toBe(true)
  })

  it('is aborted with the turn: the turn ends aborted, without a step', async () => {
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, onLimit: 'delay' })
    await kit.send('one')
    const delayed = new Promise<void>((resolve) => kit.agent.hooks.event.tap('test', (e) => e.type === 'rate-limit/delayed' && resolve()))
    const from = kit.events.length
    kit.agent.followup('two')
    await delayed
    kit.agent.abort('stop')
    // The delay is a minute, longer than the test may take: idle in time only if the abort ended it.
    await kit.agent.whenIdle()
    expect(timeline(kit.events.slice(from))).toMatchInlineSnapshot(`
      "splice next-turn @0 +["two"]
      turn/start 2
      splice next-turn @0 -1
      rate-limit/delayed {"turn":2,"step":1,"key":"session","counts":"turns","limit":1,"windowMs":60000,"delayMs":N}
      turn/end 2 aborted (stop)"
    `)
  })
})

describe('requeue', () => {
  it('rejects now, and puts the message back at the head of next-turn; a running driver takes it up', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 300, per: 'source', onLimit: 'requeue' }, {
      // bob's answer streams for 4 × 150 ms: ada's requeue, due when bob's step starts, is waited
      // for again at most 300 ms later, and comes back meanwhile (timers fire in deadline order)
      responses: [{ text: 'for ada' }, { text: 'for bob, slowly', chunkSize: 4, delayMs: 150 }],
      now: clock.now,
    })
    kit.agent.hooks.event.tap('test', (e) => {
      if (e.type === 'user/message' && messageText(e.data as never) === 'three') clock.advance(300)
    })
    kit.agent.followup(from('ada', 'one'))
    kit.agent.followup(from('ada', 'two'))
    kit.agent.followup(from('bob', 'three'))
    await kit.agent.whenIdle()
    expect(timeline(kit.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["one"]
      splice next-turn @1 +["two"]
      splice next-turn @2 +["three"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "one"
      assistant/message "for ada"
      step/end 1.1 stop
      turn/end 1 completed
      turn/start 2
      splice next-turn @0 -1
      rate-limit/requeued {"turn":2,"dueAt":N,"messages":[{"id":ID,"role":"user","content":[{"type":"text","text":"two"}],"source":{"kind":"user","userId":"ada","delivery":"followup"}}]}
      rejected 2 by=rate-limit {"limit":1,"windowMs":300,"retryAfterMs":N,"counts":"turns","burst":1,"key":"userId:ada","onLimit":"requeue"}
      turn/end 2 blocked by=rate-limit {"limit":1,"windowMs":300,"retryAfterMs":N,"counts":"turns","burst":1,"key":"userId:ada","onLimit":"requeue"}
      turn/start 3
      splice next-turn @0 -1
      step/start 3.1
      user/message "three"
      splice next-turn @0 +["two"]
      assistant/message "for bob, slowly"
      step/end 3.1 stop
      turn/end 3 completed
      turn/start 4
      splice next-turn @0 -1
      step/start 4.1
      user/message "two"
      assistant/message "echo: two"
      step/end 4.1 stop
      turn/end 4 completed"
    `)
  })

  it('keeps the FIFO order of several requeued messages, ahead of later input', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }, { now: clock.now })
    await kit.send('one')
    kit.agent.followup('two')
    kit.agent.followup('three')
    await kit.agent.whenIdle()
    // queued after the rejections, before the requeues (a splice does not wake the agent)
    kit.agent.inbox.splice('next-turn', Infinity, 0, [createUserMessage('four')])
    const stepped = () => kit.events.filter((e) => e.type === 'user/message').map((e) => messageText(e.data as never))
    await passTime(clock, 50, () => stepped().length === 4, 'four messages stepped')
    await kit.agent.whenIdle()
    // one turn per window: the requeued messages in their order, then the later input
    expect(stepped()).toEqual(['one', 'two', 'three', 'four'])
  })

  it('an idle agent is woken when the requeued message is put back, and runs it', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }, { now: clock.now })
    await kit.send('one')
    expectRejected(await kit.send('two'), { metadata: { onLimit: 'requeue' } })
    const before = kit.events.length
    clock.advance(200)
    while (!kit.events.slice(before).some((e) => e.type === 'turn/end')) await wait(20)
    await kit.agent.whenIdle()
    expect(timeline(kit.events.slice(before))).toMatchInlineSnapshot(`
      "splice next-turn @0 +["two"]
      turn/start 3
      splice next-turn @0 -1
      step/start 3.1
      user/message "two"
      assistant/message "echo: two"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
  })

  it('agent.cancel() drops a pending requeue, durably: it does not come back, not after a restart either', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }, { now: clock.now })
    await kit.send('one')
    await kit.send('two') // rejected, requeued in 200 ms
    kit.agent.cancel()
    expect(timeline(kit.events.slice(-1))).toMatch(/^rate-limit\/requeue-canceled \{"ids":\["[0-9a-f-]{36}"\]\}$/)
    await kit.restart()
    // Due now: a requeue the restart had restored would fire at once.
    clock.advance(200)
    await wait(350)
    await kit.agent.whenIdle()
    expect(kit.events.filter((e) => e.type === 'user/message').map((e) => messageText(e.data as never))).toEqual(['one'])
    expect(kit.agent.inbox.hasPending).toBe(false)
    await kit.close()
  })

  it('a cancel() while an earlier pre-step tap waits is not undone by a requeue: the turn ends aborted, nothing comes back', async () => {
    // The second turn's step waits in this earlier tap (rate-limit's is late) until the test lets it go.
    let entered!: () => void
    const deciding = new Promise<void>((resolve) => (entered = resolve))
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let steps = 0
    const slow = definePlugin({
      name: 'slow-policy',
      setup: ({ hooks }) => hooks.preStep.tapPromise('slow-policy', async (decision) => {
        if (++steps === 2) {
          entered()
          await held
        }
        return decision
      }),
    })
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }, { plugins: [slow], now: clock.now })
    await kit.send('one')
    kit.agent.followup('two')
    await deciding // claimed, the slow policy still deciding
    kit.agent.cancel()
    release()
    await kit.agent.whenIdle()
    clock.advance(200)
    await wait(300)
    await kit.agent.whenIdle()
    expect(kit.events.some((e) => e.type === 'rate-limit/requeued')).toBe(false)
    expect(kit.events.filter((e) => e.type === 'user/message').map((e) => messageText(e.data as never))).toEqual(['one'])
    expect(kit.events.filter((e) => e.type === 'turn/end').at(-1)?.data).toMatchObject({ reason: { kind: 'aborted', reason: 'canceled' } })
  })

  it('a cancel() from an observer of rate-limit/requeued drops that very requeue, and logs it after it', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }, { now: clock.now })
    await kit.send('one')
    kit.agent.hooks.event.tap('canceler', (event) => {
      if (event.type === 'rate-limit/requeued') kit.agent.cancel()
    })
    await kit.send('two')
    const types = kit.events.map((e) => e.type)
    expect(types.indexOf('rate-limit/requeue-canceled')).toBeGreaterThan(types.indexOf('rate-limit/requeued'))
    await kit.restart()
    clock.advance(200)
    await wait(300)
    await kit.agent.whenIdle()
    expect(kit.events.filter((e) => e.type === 'user/message').map((e) => messageText(e.data as never))).toEqual(['one'])
  })

  it('closing the agent cancels pending requeues', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }, { now: clock.now })
    await kit.send('one')
    expectRejected(await kit.send('two'), { metadata: { onLimit: 'requeue' } })
    await kit.agent.close()
    const length = kit.events.length
    clock.advance(200)
    await wait(350)
    expect(kit.events.length).toBe(length)
  })
})

describe('restart', () => {
  it('a fork does not take over its parent’s pending requeue (as it takes over no pending input)', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }, { now: clock.now })
    await kit.send('one')
    expectRejected(await kit.send('two'), { metadata: { onLimit: 'requeue' } }) // requeued in 200 ms
    await kit.close()
    const child = await forkSession(kit.store, kit.sessionId, { id: 'child' })
    await child.writer.close()
    const model = scripted({ responses: [] })
    const agent = await createAgent({ model, store: kit.store, sessionId: 'child', now: clock.now, plugins: [[rateLimit, { turnsPerMinute: 1, windowMs: 200, onLimit: 'requeue' }]] })
    clock.advance(200)
    await wait(350)
    await agent.whenIdle()
    expect(model.requests).toBe(0)
    expect(agent.inbox.nextTurn).toEqual([])
    await agent.close()
  })

  it('a requeue the process did not carry out (it stopped first) is carried out by the next one, once', async () => {
    const clock = testClock()
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, windowMs: 300, onLimit: 'requeue' }, { now: clock.now })
    await kit.send('one')
    expectRejected(await kit.send('two'), { metadata: { onLimit: 'requeue' } })
    await kit.restart() // before the requeue fell due: the old agent's timer is gone
    const stepped = () => kit.events.filter((e) => e.type === 'user/message').map((e) => messageText(e.data as never))
    await passTime(clock, 25, () => stepped().length === 2, 'the requeued message stepped')
    await kit.agent.whenIdle()
    expect(stepped()).toEqual(['one', 'two'])
    // Put back and run: a later process has nothing left to requeue.
    const length = kit.events.length
    await kit.restart()
    clock.advance(300)
    await wait(400)
    expect(kit.events.length).toBe(length)
    await kit.close()
  })

  it('keeps the limit: the count comes from the log', async () => {
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 2 })
    await kit.send('one')
    await kit.restart()
    await kit.send('two')
    await kit.restart()
    expectRejected(await kit.send('three'), { by: 'rate-limit', metadata: { limit: 2, counts: 'turns' } })
  })

  it('keeps per-source counts and the steps of a turn', async () => {
    const kit = await testPlugin(rateLimit, { turnsPerMinute: 1, stepsPerMinute: 3, per: 'source' }, {
      tools: [noop], responses: [{ toolCalls: [{ name: 'noop' }] }, { text: 'done' }],
    })
    await kit.send(from('ada', 'two steps'))
    await kit.restart()
    expectRejected(await kit.send(from('ada', 'again')), { metadata: { key: 'userId:ada', counts: 'turns' } })
    expectEntered(await kit.send(from('bob', 'hello')), ['hello'])
  })
})
