// Files attached in useChat (`sendMessage({ text, files })`: file parts, a FileList read as data:
// URLs). An image given inline reaches the model as an image block, as through POST …/messages;
// a file the host cannot give the model is refused saying which part and what to send — the
// chat route used to keep the text parts alone and drop every file without a word (found walking
// useChat against a host: the model answered as if nothing had been attached). Real HTTP on
// 127.0.0.1, JSONL files, ai 6's DefaultChatTransport.
import { describe, expect, it } from 'vitest'
import { DefaultChatTransport, type FileUIPart, type UIMessage, type UIMessageChunk } from 'ai'
import type { ModelRequest } from '@bosun/core'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import { listen } from '../src/index.js'
import { json, makeHost, perTest } from './helpers.js'

const t = perTest()

const PNG = 'iVBORw0KGgoAAAANSUhEUg=='
const image: FileUIPart = { type: 'file', mediaType: 'image/png', filename: 'dot.png', url: `data:image/png;base64,${PNG}` }

async function chatHost() {
  const requests: ModelRequest[] = []
  // A function answer (scripted takes one) records what the model was given.
  const record = (request: ModelRequest): ScriptedResponse => { requests.push(request); return { text: 'seen' } }
  const { host, store } = makeHost(t.dir, () => [record as unknown as ScriptedResponse])
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  // Closed in reverse: the server, then the host, then the store.
  t.closing.push(store, host, server)
  const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/v1/ai-sdk/chat` })
  const send = async (id: string, parts: UIMessage['parts']): Promise<UIMessageChunk[]> => {
    const stream = await transport.sendMessages({ chatId: id, messages: [{ id: `${id}-u1`, role: 'user', parts }], trigger: 'submit-message', messageId: undefined, abortSignal: undefined })
    const chunks: UIMessageChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    return chunks
  }
  return { requests, send, url: server.url }
}

describe('AI SDK chat: files attached to the message', () => {
  it('an image as a data: URL reaches the model as an image block, in the order the message has them', async () => {
    const { requests, send } = await chatHost()
    const chunks = await send('c-image', [image, { type: 'text', text: 'what is this?' }])
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
    const user = requests[0]!.messages.find((m) => m.role === 'user')!
    expect(user.content).toEqual([
      { type: 'image', mediaType: 'image/png', data: PNG },
      { type: 'text', text: 'what is this?' },
    ])
  })

  it('an image alone (no text) is a message too; a data: URL without base64 is percent-decoded byte by byte', async () => {
    const { requests, send } = await chatHost()
    // %FF is no UTF-8: decodeURIComponent would refuse it, an image's bytes are not text.
    await send('c-plain', [{ type: 'file', mediaType: 'image/gif', url: 'data:image/gif,GIF89a%01%FF' }])
    expect(requests[0]!.messages.find((m) => m.role === 'user')!.content).toEqual([
      { type: 'image', mediaType: 'image/gif', data: Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x01, 0xff])]).toString('base64') },
    ])
  })

  it.each([
    ['a PDF', { type: 'file', mediaType: 'application/pdf', url: 'data:application/pdf;base64,JVBERi0=' }, /application\/pdf.*only images/],
    ['an image by its URL', { type: 'file', mediaType: 'image/png', url: 'https://example.com/dot.png' }, /not a data: URL.*fetches no URL/],
    // A type no provider takes stays in the history and fails every later turn (it was admitted).
    ['an SVG image', { type: 'file', mediaType: 'image/svg+xml', url: 'data:image/svg+xml;base64,PHN2Zy8+' }, /"image\/svg\+xml".*image\/png, image\/jpeg, image\/gif, image\/webp/],
    ['an image whose base64 is not', { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,!!!' }, /does not hold its bytes in base64/],
    ['an image whose data: URL is empty', { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,' }, /base64 \(it is empty\)/],
    ['a text file sent as an image', { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,aGVsbG8=' }, /data: URL is not a PNG image/],
    ['a WebP sent as image/gif', { type: 'file', mediaType: 'image/gif', url: `data:image/gif;base64,${Buffer.from('RIFF\0\0\0\0WEBPVP8 ').toString('base64')}` }, /holds a WebP image, not the GIF its mediaType says/],
    // decodeURIComponent threw a URIError: 500 internal-error with a stack in the host's log.
    ['an image with a bad percent-escape', { type: 'file', mediaType: 'image/png', url: 'data:image/png,%' }, /"%" not followed by two hexadecimal digits/],
  ] as const)('%s is refused at its part, saying what to send, and nothing is admitted', async (_, file, message) => {
    const { send, url } = await chatHost()
    const refused = send('c-refused', [{ type: 'text', text: 'look' }, file as FileUIPart])
    await expect(refused).rejects.toThrow(/"code":"invalid-request"/)
    const body = JSON.parse(((await refused.catch((error: unknown) => error)) as Error).message)
    expect(body.error.details).toEqual({ path: '/messages/0/parts/1' })
    expect(body.error.message).toMatch(message)
    // Refused before the session is opened or created.
    expect(await json(fetch(`${url}/v1/sessions/c-refused`))).toMatchObject({ error: { code: 'session-not-found' } })
  })

  it.each([
    ['null', null],
    ['a string', 'hi'],
    ['an object without a type', { text: 'hi' }],
  ])('a part that is %s is 400 invalid-request at it (null was a 500: the route read its type; the others were passed over)', async (_, part) => {
    const { url } = await chatHost()
    const answer = await fetch(`${url}/v1/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'c-part', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'look' }, part] }] }) })
    expect(answer.status).toBe(400)
    expect(await answer.json()).toMatchObject({ error: { code: 'invalid-request', details: { path: '/messages/0/parts/1' }, message: expect.stringMatching(/must be an object with a "type"/) } })
  })
})
