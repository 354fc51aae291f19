import { describe, expect, it } from 'vitest'
import { BosunError, createUserMessage, definePlugin, messageText, Stage } from '@bosun/core'
import { expectEntered, expectRejected, testPlugin } from './index.js'

/** Rejects a step whose input contains `word`. */
const guard = definePlugin<{ word: string }>({
  name: 'guard',
  schema: { type: 'object', properties: { word: { type: 'string', minLength: 1 } }, required: ['word'], additionalProperties: false },
  setup({ hooks, name }, { word }) {
    hooks.preStep.tapPromise(name, async (decision) =>
      decision.kind === 'enter' && decision.messages.some((m) => messageText(m).includes(word))
        ? { kind: 'reject', metadata: { word, retry: false } }
        : decision,
    )
  },
})

/** Rewrites digits to `#` (keeping each message's id and source): the model sees the redacted text. */
const redact = definePlugin({
  name: 'redact',
  setup({ hooks, name }) {
    hooks.preStep.tapPromise({ name, stage: Stage.early }, async (decision) =>
      decision.kind === 'enter'
        ? { kind: 'enter', messages: decision.messages.map((m) => createUserMessage(messageText(m).replace(/\d/g, '#'), { id: m.id, source: m.source })) }
        : decision,
    )
  },
})

/** Admits two turns per session, counting the turns that entered from the log: the count survives a restart. */
const quota = definePlugin<{ turns: number }>({
  name: 'quota',
  schema: { type: 'object', properties: { turns: { type: 'integer', minimum: 1 } }, required: ['turns'] },
  setup({ hooks, name, session }, { turns }) {
    hooks.preStep.tapPromise(name, async (decision, { step }) => {
      if (decision.kind !== 'enter' || step > 1) return decision
      const used = session.events.filter((event) => event.type === 'step/start' && (event.data as { step: number }).step === 1).length
      return used < turns ? decision : { kind: 'reject', metadata: { used, turns } }
    })
  },
})

/** Counts admitted steps in its own ignorable events, `tally/step`, and reports the count to the model. */
const tally = definePlugin({
  name: 'tally',
  events: { 'tally/step': { ignorable: true } },
  setup({ hooks, name, session }) {
    let count = session.events.filter((event) => event.type === 'tally/step').length
    hooks.preStep.tapPromise(name, async (decision) => {
      if (decision.kind !== 'enter') return decision
      session.append('tally/step', { count: ++count })
      return { kind: 'enter', messages: [...decision.messages, createUserMessage(`step #${count}`, { source: { kind: 'plugin' } })] }
    })
  },
})

describe('testPlugin', () => {
  it('reports a rejected input: who rejected it, with what metadata, and that nothing entered', async () => {
    const kit = await testPlugin(guard, { word: 'secret' })
    const turn = await kit.send('the secret is 42')
    expectRejected(turn, { by: 'guard', metadata: { word: 'secret' } })
    expect(turn.rejected).toEqual({ by: 'guard', metadata: { word: 'secret', retry: false } })
    expect(turn.end).toEqual({ kind: 'blocked', by: 'guard', metadata: { word: 'secret', retry: false } })
    expect(turn.entered).toEqual([])
    expect(turn.reply).toBe('')
    expect(kit.model.requests).toBe(0)
    expect(turn.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["the secret is 42"]
      turn/start 1
      splice next-turn @0 -1
      rejected 1 by=guard {"word":"secret","retry":false}
      turn/end 1 blocked by=guard {"word":"secret","retry":false}"
    `)
  })

  it('reports an admitted input: what entered and what the scripted model answered', async () => {
    const kit = await testPlugin(guard, { word: 'secret' }, { responses: [{ text: 'Hi there', chunkSize: 3 }] })
    const turn = await kit.send('hello')
    expectEntered(turn, ['hello'])
    expect(turn.rejected).toBeUndefined()
    expect(turn).toMatchObject({ turns: [1], reply: 'Hi there', end: { kind: 'completed' } })
    // When the script runs out the model echoes the last user message.
    expect((await kit.send('again')).reply).toBe('echo: again')
  })

  it('reports a rewritten input as the model saw it', async () => {
    const kit = await testPlugin(redact)
    const turn = await kit.send('call 555-0100')
    expectEntered(turn, ['call ###-####'])
    // The rewrite keeps the sent message's source: a person's, and how kit.send() sent it (a follow-up).
    expect(turn.messages[0]?.source).toEqual({ kind: 'user', delivery: 'followup' })
    expect(kit.model.recorded[0]?.messages).toMatchObject([{ role: 'user', content: [{ type: 'text', text: 'call ###-####' }] }])
  })

  it('sets up the other plugins first, and stages order the taps', async () => {
    // redact taps at Stage.early, so guard (normal stage) sees the redacted text even though it is set up first.
    const kit = await testPlugin(redact, undefined, { plugins: [[guard, { word: '###' }]] })
    expectRejected(await kit.send('pin 123'), { by: 'guard', metadata: { word: '###' } })
  })

  it('rejects with PLUGIN_OPTIONS_INVALID, naming the plugin and the path, when the options break the schema', async () => {
    const error = await testPlugin(guard, { word: 3 } as never).catch((e: unknown) => e)
    expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
    expect((error as Error).message).toContain('plugin "guard"')
    expect((error as Error).message).toContain('$.word')
  })

  it('rejects with PLUGIN_SETUP_FAILED when setup throws', async () => {
    const broken = definePlugin({ name: 'broken', setup: () => { throw new Error('no config file') } })
    await expect(testPlugin(broken)).rejects.toMatchObject({ code: 'PLUGIN_SETUP_FAILED' })
  })

  it('reports a throwing hook as a turn that ended with PLUGIN_HOOK_FAILED', async () => {
    const throws = definePlugin({
      name: 'throws',
      setup: ({ hooks }) => void hooks.preStep.tap('throws', () => { throw new Error('bug') }),
    })
    const turn = await (await testPlugin(throws)).send('hi')
    expect(turn.end?.kind).toBe('error')
    expect(turn.error).toMatchObject({ code: 'PLUGIN_HOOK_FAILED', details: { plugin: 'throws', hook: 'agent/pre-step' } })
  })

  it('inject queues context that rides the next send; steer wakes the agent', async () => {
    const kit = await testPlugin(guard, { word: 'secret' })
    kit.inject('cwd is /tmp')
    expectEntered(await kit.send('list files'), ['cwd is /tmp', 'list files'])
    const steered = await kit.steer('be brief')
    expect(steered).toMatchObject({ turns: [2], entered: ['be brief'] })
  })

  it('keeps state derived from the log across a restart', async () => {
    const kit = await testPlugin(quota, { turns: 2 })
    expectEntered(await kit.send('one'), ['one'])
    await kit.restart()
    expectEntered(await kit.send('two'), ['two'])
    await kit.restart()
    expectRejected(await kit.send('three'), { by: 'quota', metadata: { used: 2, turns: 2 } })
    expect(kit.events.filter((e) => e.type === 'turn/start')).toHaveLength(3)
  })

  it("keeps state in the plugin's own events across a restart", async () => {
    const kit = await testPlugin(tally)
    expectEntered(await kit.send('a'), ['a', 'step #1'])
    const first = kit.agent
    await kit.restart()
    expect(kit.agent).not.toBe(first)
    expectEntered(await kit.send('b'), ['b', 'step #2'])
    expect(kit.timeline()).toContain('tally/step')
  })

  it('keeps the session in the given store under the given id', async () => {
    const kit = await testPlugin(guard, { word: 'x' }, { sessionId: 'chat-1', system: 'Be terse.' })
    await kit.send('hello')
    await kit.close()
    expect(kit.sessionId).toBe('chat-1')
    expect((await kit.store.open('chat-1'))?.events.length).toBe(kit.events.length)
    expect(kit.model.recorded[0]?.system).toBe('Be terse.')
  })
})
