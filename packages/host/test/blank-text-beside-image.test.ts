// A text block of whitespace only beside an image (a caption left blank: `[{ type: "text", text:
// "   " }, { type: "image", … }]`) was admitted as sent and given to the model, and Anthropic
// refuses a request with one ("text content blocks must contain non-whitespace text") — on that
// turn and, as the block stays in the history, on every later turn of the session. The host now
// keeps such a message without its blank text blocks (a blank block right after a text block is
// joined to it, so the message's text is unchanged), on POST …/messages, PATCH of a queued message
// and the AI SDK chat route alike. Real host, real JSONL files.
import { describe, expect, it } from 'vitest'
import type { ModelRequest } from '@bosun/core'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import { json, makeHost, perTest, req, waitFor } from './helpers.js'

const t = perTest()

const PNG = 'iVBORw0KGgoAAAANSUhEUg=='
const image = { type: 'image', mediaType: 'image/png', data: PNG }

/** A host whose model records every request it is given (and answers "seen"). */
async function recordingHost() {
  const requests: ModelRequest[] = []
  const record = (request: ModelRequest): ScriptedResponse => { requests.push(request); return { text: 'seen' } }
  const { host, store } = makeHost(t.dir, () => [record, record, record] as unknown as ScriptedResponse[])
  t.closing.push(store, host)
  await req(host, 'POST', '/v1/sessions', { id: 's' })
  /** The user messages' content of the model's `n`th request (1-based), once it came. */
  const userContents = async (n: number) => {
    await waitFor(() => requests.length >= n, 15_000, () => `the model's request ${n} (${requests.length} so far)`)
    return requests[n - 1]!.messages.filter((m) => m.role === 'user').map((m) => m.content)
  }
  return { host, userContents }
}

describe('host: a text block of whitespace only beside an image', () => {
  it('POST …/messages admits the image without it; the model never gets it, on that turn or the next; a retry is the same message', async () => {
    const { host, userContents } = await recordingHost()
    const sent = { clientMessageId: 'm1', content: [{ type: 'text', text: '   ' }, image, { type: 'text', text: '\n' }] }
    expect((await req(host, 'POST', '/v1/sessions/s/messages', sent)).status).toBe(202)
    expect(await userContents(1)).toEqual([[image]])
    // A retry of the same body is the message admitted (its first receipt), not a reused id.
    const retry = await req(host, 'POST', '/v1/sessions/s/messages', sent)
    expect(retry.status).toBe(202)
    expect((await json(retry)).duplicate).toBe(true)
    expect((await json(req(host, 'GET', '/v1/sessions/s/messages/m1'))).status).not.toBe('refused')
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'and now?' })).status).toBe(202)
    expect(await userContents(2)).toEqual([[image], [{ type: 'text', text: 'and now?' }]])
  })

  it('a blank block after a text block is joined to it: the message reads as sent', async () => {
    const { host, userContents } = await recordingHost()
    const content = [{ type: 'text', text: 'look' }, { type: 'text', text: ' ' }, image, { type: 'text', text: '' }, { type: 'text', text: 'here' }]
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content })).status).toBe(202)
    expect(await userContents(1)).toEqual([[{ type: 'text', text: 'look ' }, image, { type: 'text', text: 'here' }]])
  })

  it('PATCH of a queued message keeps it without its blank text blocks', async () => {
    const { host } = await recordingHost()
    // Parked: an inject queued behind nothing stays queued.
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'hello', delivery: 'inject' })).status).toBe(202)
    const edit = await req(host, 'PATCH', '/v1/sessions/s/inbox/m1', { content: [image, { type: 'text', text: ' \t' }] })
    expect(edit.status).toBe(200)
    const { inbox } = await json(req(host, 'GET', '/v1/sessions/s'))
    expect(JSON.stringify(inbox)).toContain(PNG)
    expect(JSON.stringify(inbox)).not.toContain('\\t')
  })

  it('the AI SDK chat route leaves a blank text part beside an image out too', async () => {
    const { host, userContents } = await recordingHost()
    const parts = [{ type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${PNG}` }, { type: 'text', text: '  ' }]
    const answer = await req(host, 'POST', '/v1/ai-sdk/chat', { id: 'c', messages: [{ id: 'u1', role: 'user', parts }] })
    expect(answer.status).toBe(200)
    await answer.text()
    expect(await userContents(1)).toEqual([[image]])
  })
})
