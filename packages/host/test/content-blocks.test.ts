import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req } from './helpers.js'

const t = perTest()

/**
 * A message's content blocks are checked by the body's schema, as every other field is: a block
 * the core would refuse (unknown type, a text block without its text) is the client's mistake,
 * `400 invalid-request` naming the block — before, it reached the core's `createUserMessage`,
 * which threw, and the host answered `500 internal-error` with a stack in its log.
 */
describe('host: content blocks of a message', () => {
  const bad: [string, unknown, string, RegExp][] = [
    ['an unknown block type', [{ type: 'txt', text: 'hi' }], '/content/0/type', /must be one of "text", "image"/],
    ['a text block without its text', [{ type: 'text' }], '/content/0/text', /"text" is required/],
    ['a text block whose text is not a string', [{ type: 'text', text: 7 }], '/content/0/text', /must be string/],
    ['an image block without its data', [{ type: 'image', mediaType: 'image/png' }], '/content/0/data', /"data" is required/],
    // An image a provider refuses stays in the history and fails every later turn: refused at admission.
    ['an SVG image', [{ type: 'image', mediaType: 'image/svg+xml', data: 'PHN2Zy8+' }], '/content/0/mediaType', /must be one of "image\/png", "image\/jpeg", "image\/gif", "image\/webp"/],
    ['an image whose data is not base64', [{ type: 'image', mediaType: 'image/png', data: '!!!' }], '/content/0/data', /must be the image's bytes in base64/],
    ['an image whose data is empty', [{ type: 'image', mediaType: 'image/png', data: '' }], '/content/0/data', /must be the image's bytes in base64/],
    // Base64 of the right alphabet, but not an image a provider takes (R7): refused too.
    ['an image whose base64 is cut (one character past a group)', [{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgoA' + 'B' }], '/content/0/data', /the image is not whole base64: 13 characters/],
    ['an image that is text ("hello")', [{ type: 'image', mediaType: 'image/png', data: 'aGVsbG8=' }], '/content/0/data', /the image is not a PNG image \(its bytes do not start with the PNG signature\)/],
    ['a JPEG sent as image/png', [{ type: 'image', mediaType: 'image/png', data: '/9j/4AAQSkZJRg==' }], '/content/0/data', /holds a JPEG image, not the PNG its mediaType says: set mediaType to "image\/jpeg"/],
    ['an image given as a data: URL', [{ type: 'image', mediaType: 'image/png', data: 'data:image/png;base64,iVBORw0KGgo=' }], '/content/0/data', /without line breaks or a "data:" prefix/],
    ['a second block that is not an object', [{ type: 'text', text: 'a' }, 'b'], '/content/1', /must be object/],
    ['an empty array', [], '/content', /must NOT have fewer than 1 items/],
    ['a number', 42, '/content', /must be a string or an array \(found a number\)/],
  ]

  it.each(bad)('POST …/messages with %s is 400 invalid-request at the block, and admits nothing', async (_, content, path, message) => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    const answer = await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content })
    const body = await json(answer)
    expect(answer.status).toBe(400)
    expect(body.error).toMatchObject({ code: 'invalid-request', details: { path } })
    expect(body.error.message).toMatch(message)
    expect((await req(host, 'GET', '/v1/sessions/s/messages/m1')).status).toBe(404)
  })

  it('PATCH …/inbox/:messageId with a bad block is 400 too, and the queued message keeps its content', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    // Parked: queued behind nothing, it stays queued.
    await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'hello', delivery: 'inject' })
    const answer = await req(host, 'PATCH', '/v1/sessions/s/inbox/m1', { content: [{ type: 'audio', data: 'x' }] })
    expect(answer.status).toBe(400)
    expect((await json(answer)).error).toMatchObject({ code: 'invalid-request', details: { path: '/content/0/type' } })
    const session = await json(req(host, 'GET', '/v1/sessions/s'))
    expect(session.inbox['next-step'][0].content).toEqual([{ type: 'text', text: 'hello' }])
  })

  it('a delivery that is none of the three is told the three', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    const answer = await json(req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'x', delivery: 'later' }))
    expect(answer.error.message).toBe('Invalid request body at /delivery: must be one of "followup", "steer", "inject".')
  })

  it('the blocks the core takes are still admitted: text, image, and a block with a field of its own', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    const content = [{ type: 'text', text: 'look', note: 'kept' }, { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }]
    const answer = await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content, delivery: 'inject' })
    expect(answer.status).toBe(202)
  })
})
