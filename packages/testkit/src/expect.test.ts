import { describe, expect, it } from 'vitest'
import { definePlugin, messageText } from '@bosun/core'
import { AssertionError, expectEntered, expectRejected, testPlugin, turnReport } from './index.js'

const guard = definePlugin<{ word: string }>({
  name: 'guard',
  setup({ hooks, name }, { word }) {
    hooks.preStep.tapPromise(name, async (decision) =>
      decision.kind === 'enter' && decision.messages.some((m) => messageText(m).includes(word))
        ? { kind: 'reject', metadata: { word, rule: { id: 7, tags: ['a'] } } }
        : decision,
    )
  },
})

async function turns() {
  const kit = await testPlugin(guard, { word: 'secret' }, { responses: [{ text: 'ok' }] })
  return { admitted: await kit.send('hello'), rejected: await kit.send('a secret') }
}

function thrown(fn: () => void): AssertionError {
  try {
    fn()
  } catch (error) {
    if (error instanceof AssertionError) return error
    throw error
  }
  throw new Error('expected an AssertionError')
}

describe('expectRejected', () => {
  it('passes on a rejection whose metadata contains the expected keys', async () => {
    const { rejected } = await turns()
    expectRejected(rejected)
    expectRejected(rejected, { by: 'guard' })
    expectRejected(rejected, { metadata: { word: 'secret', rule: { tags: ['a'] } } })
  })

  it('fails on an admitted turn, saying how it ended, with the timeline', async () => {
    const { admitted } = await turns()
    const error = thrown(() => expectRejected(admitted, { by: 'guard' }))
    expect(error).toMatchObject({ name: 'AssertionError', code: 'ERR_ASSERTION', expected: { kind: 'blocked', by: 'guard' }, actual: { kind: 'completed' } })
    expect(error.message).toMatchInlineSnapshot(`
      "expectRejected: expected the turn to be rejected, but it ended completed after entering ["hello"].
        - expected: {"kind":"blocked","by":"guard"}
        + actual:   {"kind":"completed"}
      timeline:
        splice next-turn @0 +["hello"]
        turn/start 1
        splice next-turn @0 -1
        step/start 1.1
        user/message "hello"
        assistant/message "ok"
        step/end 1.1 stop
        turn/end 1 completed"
    `)
  })

  it('fails on the wrong plugin or metadata, showing both', async () => {
    const { rejected } = await turns()
    expect(thrown(() => expectRejected(rejected, { by: 'other' })).message.split('\n').slice(0, 3)).toEqual([
      'expectRejected: expected a rejection by "other", but "guard" rejected it.',
      '  - expected: "other"',
      '  + actual:   "guard"',
    ])
    expect(thrown(() => expectRejected(rejected, { metadata: { rule: { tags: [] } } })).message.split('\n').slice(0, 3)).toEqual([
      'expectRejected: the turn was rejected by "guard", with other metadata.',
      '  - expected: {"rule":{"tags":[]}}',
      '  + actual:   {"word":"secret","rule":{"id":7,"tags":["a"]}}',
    ])
  })
})

describe('expectEntered', () => {
  it('passes when exactly these texts entered, in order', async () => {
    const { admitted, rejected } = await turns()
    expectEntered(admitted, ['hello'])
    expectEntered(rejected, [])
  })

  it('fails on other texts, or on a rejection, saying which', async () => {
    const { admitted, rejected } = await turns()
    expect(thrown(() => expectEntered(admitted, ['hello', 'more'])).message.split('\n').slice(0, 3)).toEqual([
      'expectEntered: other messages entered.',
      '  - expected: ["hello","more"]',
      '  + actual:   ["hello"]',
    ])
    expect(thrown(() => expectEntered(rejected, ['a secret'])).message.split('\n')[0]).toBe(
      'expectEntered: nothing entered: the turn was rejected by "guard" with {"word":"secret","rule":{"id":7,"tags":["a"]}}.',
    )
  })
})

describe('turnReport', () => {
  it('summarises any slice of a log; an empty slice ran no turn', async () => {
    const empty = turnReport([])
    expect(empty).toMatchObject({ turns: [], entered: [], rejected: undefined, end: undefined, reply: '', timeline: '' })
    expect(thrown(() => expectRejected(empty)).message).toMatchInlineSnapshot(`
      "expectRejected: expected the turn to be rejected, but it ran no turn.
        - expected: {"kind":"blocked"}
        + actual:   undefined
      timeline:
        (no events)"
    `)
  })
})
