import { describe, expect, it } from 'vitest'
import { MAX_BODY_PROBLEMS } from '../src/schemas.js'
import { bodyRefusal as refusal, json, makeHost, perTest, req } from './helpers.js'

const t = perTest()


/**
 * A bad body was told its first problem only (Ajv stopped at the first error): a client fixing
 * one field at a time made a round trip per field. Every problem is now told — in
 * `details.problems` (`{ path, message }`, at most 10) and in the message — the first still in
 * `details.path` and at the start of the message, as before.
 */
describe('host: every problem of a bad body', () => {
  it('a message body with three wrong fields lists the three, the first as before', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    const answer = await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'my id', content: [{ type: 'audio' }], delivery: 'later' })
    expect(answer.status).toBe(400)
    const { error } = await json(answer)
    expect(error.code).toBe('invalid-request')
    expect(error.details.path).toBe('/clientMessageId')
    expect(error.details.problems).toEqual([
      { path: '/clientMessageId', message: 'must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit (found "my id")' },
      { path: '/content/0/type', message: 'must be one of "text", "image"' },
      { path: '/delivery', message: 'must be one of "followup", "steer", "inject"' },
    ])
    expect(error.message).toBe(
      'Invalid request body at /clientMessageId: must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit (found "my id").'
      + ' Also at /content/0/type: must be one of "text", "image"; at /delivery: must be one of "followup", "steer", "inject".',
    )
  })

  it('a body with one problem is answered as before, with that one listed', () => {
    const { message, details } = refusal('postMessage', { clientMessageId: 'm1', content: 'x', delivery: 'later' })
    expect(message).toBe('Invalid request body at /delivery: must be one of "followup", "steer", "inject".')
    expect(details).toEqual({ path: '/delivery', problems: [{ path: '/delivery', message: 'must be one of "followup", "steer", "inject"' }] })
  })

  it('unknown fields the first problem already names are listed, not said twice in the message', () => {
    const { message, details } = refusal('postMessage', { message: 'hi', id: 'm1' })
    expect(message).toBe('Invalid request body at /clientMessageId: "clientMessageId" is required (the body\'s "message", "id" are not among its fields: clientMessageId, content, delivery). Also at /content: "content" is required.')
    expect(details.problems.map((p: { path: string }) => p.path)).toEqual(['/clientMessageId', '/content', '/message', '/id'])
  })

  it('is bounded: at most MAX_BODY_PROBLEMS listed, and how many more', () => {
    const body = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`extra${i}`, i]))
    const { message, details } = refusal('cancel', body)
    expect(details.problems).toHaveLength(MAX_BODY_PROBLEMS)
    expect(details.problems[0]).toEqual({ path: '/extra0', message: 'unknown property "extra0"' })
    expect(details.moreProblems).toBe(25 - MAX_BODY_PROBLEMS)
    expect(message).toMatch(/ \(and 15 more\)\.$/)
  })
})
