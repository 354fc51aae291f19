import { describe, expect, it } from 'vitest'
import { validateBody, type BodyOf, type PostMessageBody } from '../src/schemas.js'

describe('body types derived from the schemas', () => {
  it('the type and the validator agree (tsc checks the @ts-expect-error lines)', () => {
    const ok: PostMessageBody = { clientMessageId: 'a-1', content: [{ type: 'text', text: 'hi' }], delivery: 'steer' }
    // @ts-expect-error delivery is one of the schema's enum
    const badDelivery: PostMessageBody = { clientMessageId: 'a-1', content: 'x', delivery: 'shout' }
    // @ts-expect-error clientMessageId is required by the schema
    const missing: PostMessageBody = { content: 'x' }
    // @ts-expect-error additionalProperties: false
    const extra: BodyOf<'cancel'> = { keepInbox: true, force: true }
    const fork: BodyOf<'fork'> = { afterTurn: 2 }
    expect(validateBody('postMessage', ok)).toEqual(ok)
    expect(validateBody('fork', fork)).toEqual(fork)
    for (const [name, body] of [['postMessage', badDelivery], ['postMessage', missing], ['cancel', extra]] as const) {
      expect(() => validateBody(name, body)).toThrow(/Invalid request body/)
    }
  })
})

describe('a body missing a field it names wrongly', () => {
  it('is told the field is required and which of its fields are unknown, with the fields it may have', () => {
    expect(() => validateBody('postMessage', { clientMessageId: 'm1', text: 'hi' })).toThrow(
      'Invalid request body at /content: "content" is required (the body\'s "text" is not one of its fields: clientMessageId, content, delivery).',
    )
    expect(() => validateBody('postMessage', { message: 'hi', id: 'm1' })).toThrow(/"clientMessageId" is required \(the body's "message", "id" are not among its fields: clientMessageId, content, delivery\)\. Also at \/content: "content" is required\.$/)
    // Nothing unknown: the message is as before; an open schema (the AI SDK's chat body) names none.
    expect(() => validateBody('postMessage', { clientMessageId: 'm1' })).toThrow(/"content" is required\.$/)
    expect(() => validateBody('aiSdkChat', { id: 'c', extra: 1 })).toThrow(/"messages" is required\.$/)
  })
})

describe('a clientMessageId of the wrong form', () => {
  it('is told the form in words, not the regular expression', () => {
    expect(() => validateBody('postMessage', { clientMessageId: 'my id', content: 'hi' })).toThrow(
      'Invalid request body at /clientMessageId: must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit (found "my id").',
    )
  })
})
