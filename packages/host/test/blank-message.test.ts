// `content: ""` was refused, but a whitespace-only string and text blocks with no visible text
// were admitted and ran a turn — and stayed in the session's history, where a provider that
// refuses a blank user message refuses every later turn of it. Such a message is now `400
// invalid-request` at `/content` (nothing admitted), on POST …/messages, PATCH of a queued
// message and the AI SDK chat route, saying what to send instead. Real host, real JSONL files.
import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req } from './helpers.js'

const t = perTest()

/** A host with session "s" (closed after the test). */
async function withSession() {
  const { host, store } = makeHost(t.dir)
  t.closing.push(store, host)
  await req(host, 'POST', '/v1/sessions', { id: 's' })
  return host
}

const blank: [string, unknown][] = [
  ['spaces', '   '],
  ['line breaks and a tab', '\n\t\n'],
  ['an empty text block', [{ type: 'text', text: '' }]],
  ['text blocks of whitespace', [{ type: 'text', text: ' ' }, { type: 'text', text: '\n' }]],
]

describe('host: a message with no visible text', () => {
  it.each(blank)('POST …/messages with %s is 400 invalid-request at /content, and admits nothing', async (_, content) => {
    const host = await withSession()
    const answer = await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content })
    const body = await json(answer)
    expect(answer.status).toBe(400)
    expect(body.error).toMatchObject({ code: 'invalid-request', details: { path: '/content' } })
    expect(body.error.message).toContain('no text but whitespace and no image: send the words to say')
    expect((await req(host, 'GET', '/v1/sessions/s/messages/m1')).status).toBe(404)
    expect((await json(req(host, 'GET', '/v1/sessions/s'))).turn).toBe(0)
  })

  it('text with words around whitespace is admitted as sent', async () => {
    const host = await withSession()
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: '  hi  ' })).status).toBe(202)
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm2', content: [{ type: 'text', text: '' }, { type: 'text', text: 'there' }] })).status).toBe(202)
  })

  it('PATCH of a queued message to whitespace is 400 at /content, and the message keeps its text', async () => {
    const host = await withSession()
    // Parked: queued behind nothing, it stays queued.
    await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'hello', delivery: 'inject' })
    const answer = await req(host, 'PATCH', '/v1/sessions/s/inbox/m1', { content: ' ' })
    expect(answer.status).toBe(400)
    expect((await json(answer)).error).toMatchObject({ code: 'invalid-request', details: { path: '/content' } })
    const { inbox } = await json(req(host, 'GET', '/v1/sessions/s'))
    expect(JSON.stringify(inbox)).toContain('hello')
  })

  it.each([['a text part of spaces', [{ type: 'text', text: '   ' }]], ['text parts of whitespace', [{ type: 'text', text: '\n' }, { type: 'text', text: ' ' }]]])('the AI SDK chat route with %s is 400 invalid-request, and admits nothing', async (_, parts) => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    const answer = await req(host, 'POST', '/v1/ai-sdk/chat', { id: 'c', messages: [{ id: 'u1', role: 'user', parts }] })
    const body = await json(answer)
    expect(answer.status).toBe(400)
    expect(body.error).toMatchObject({ code: 'invalid-request', details: { path: '/messages/0/parts' } })
    expect(body.error.message).toContain('no text but whitespace and no image part: send the words to say')
    expect((await req(host, 'GET', '/v1/sessions/c/messages/u1')).status).toBe(404)
  })
})

it('the OpenAPI document says what content must hold', async () => {
  const { host, store } = makeHost(t.dir)
  t.closing.push(store, host)
  const { components } = await json(req(host, 'GET', '/v1/openapi.json'))
  for (const name of ['postMessage', 'editMessage']) expect(components.schemas[name].properties.content.description).toContain('a character other than whitespace')
})
