// A chat must be able to continue whatever the host itself sent into it: useChat sends the whole
// history back with every POST, and the request body depth limit (100, 2bd3004) applied to all of
// it — a tool input nested 96 levels, stored by the client as `messages[i].parts[j].input`, made
// every later POST of that chat 400. Hostile nesting is still refused before it is parsed.
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { createAgent, definePlugin, type Plugin } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen } from '../src/index.js'
import { CHAT_BODY_DEPTH } from '../src/ai-sdk-chat.js'
import { MAX_BODY_DEPTH } from '../src/request.js'
import { perTest } from './helpers.js'

const t = perTest()

interface Nested { [key: string]: Nested }

/** An object nesting `levels` objects (`{}` is 1). */
function nested(levels: number): Nested {
  let value: Nested = {}
  for (let i = 1; i < levels; i++) value = { a: value }
  return value
}

/** Objects and arrays inside each other, as JSON.parse builds them (iteratively: deep values welcome). */
function depthOf(value: unknown): number {
  let max = 0
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [v, d] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    max = Math.max(max, d)
    for (const child of Object.values(v)) stack.push([child, d + 1])
  }
  return max
}

const probe = { name: 'probe', description: 'Takes anything', parameters: { type: 'object' }, execute: () => 'ok' }
const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })

async function chatHost(responses: () => ScriptedResponse[], plugins: Plugin[] = []) {
  // Closed last (the list closes in reverse): a store left open keeps its journal file open.
  const store = jsonlStore({ dir: t.dir })
  t.closing.push(store)
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: responses() }), store, sessionId, tools: [probe], plugins }),
    limits: { keepAliveMs: 200 },
  })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  t.closing.push(server)
  return { server, transport: new DefaultChatTransport<UIMessage>({ api: `${server.url}/v1/ai-sdk/chat` }) }
}

async function send(transport: DefaultChatTransport<UIMessage>, chatId: string, messages: UIMessage[]): Promise<UIMessage> {
  const stream = await transport.sendMessages({ chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined })
  let last: UIMessage | undefined
  for await (const message of readUIMessageStream({ stream })) last = message
  return last!
}

describe('AI SDK chat: what the host sent into a chat never stops it (body depth)', () => {
  it.each([95, 96, 99])('a tool input nested %i levels: the next POST, with the whole history, streams its turn', async (levels) => {
    const { transport } = await chatHost(() => [{ toolCalls: [{ name: 'probe', args: nested(levels) }] }, { text: 'first' }, { text: 'second' }])
    const u1 = user('u1', 'go deep')
    const answer = await send(transport, 'deep', [u1])
    const tool = answer.parts.find((p) => p.type === 'tool-probe') as { input: unknown; state: string }
    expect(tool.state).toBe('output-available')
    expect(depthOf(tool.input)).toBe(levels)
    const history = [u1, answer, user('u2', 'and now?')]
    // The body wraps the input in five levels (the body, messages, a message, parts, the part): over 100 from 96 on.
    expect(depthOf({ id: 'deep', messages: history })).toBe(levels + 5)
    const next = await send(transport, 'deep', history)
    expect(next.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('')).toBe('second')
  })

  it('a tool input nested deeper than a part may is sent as its JSON text, and the chat still continues', async () => {
    const levels = CHAT_BODY_DEPTH + 50
    const { transport } = await chatHost(() => [{ toolCalls: [{ name: 'probe', args: nested(levels) }] }, { text: 'first' }, { text: 'second' }])
    const u1 = user('u1', 'go deeper')
    const answer = await send(transport, 'deeper', [u1])
    const tool = answer.parts.find((p) => p.type === 'tool-probe') as { input: unknown }
    expect(typeof tool.input).toBe('string')
    expect(depthOf(JSON.parse(tool.input as string))).toBe(levels)
    const next = await send(transport, 'deeper', [u1, answer, user('u2', 'and now?')])
    expect(next.parts.some((p) => p.type === 'text' && p.text === 'second')).toBe(true)
  })

  it('a plugin\'s deep reject metadata is sent as its JSON text too', async () => {
    const metadata = nested(MAX_BODY_DEPTH)
    const guard = definePlugin({ name: 'guard', setup: ({ hooks }) => void hooks.preStep.tap('guard', () => ({ kind: 'reject', metadata })) })
    const { transport } = await chatHost(() => [{ text: 'never' }], [guard])
    const u1 = user('u1', 'hi')
    const answer = await send(transport, 'rejected', [u1])
    const part = answer.parts.find((p) => p.type === 'data-bosun-rejected') as { data: { by: string; metadata: unknown } }
    expect(part.data.by).toBe('guard')
    expect(JSON.parse(part.data.metadata as string)).toEqual(metadata)
    const next = await send(transport, 'rejected', [u1, answer, user('u2', 'again')])
    expect(next.parts.some((p) => p.type === 'data-bosun-rejected')).toBe(true)
  })

  it('hostile nesting is still refused before it is parsed: 10,000 levels in the history or in the new message', async () => {
    const { server } = await chatHost(() => [])
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`
    const bodies = [
      `{"id":"hostile","messages":[{"id":"a1","role":"assistant","parts":[{"type":"tool-x","input":${deep}}]},{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]}]}`,
      `{"id":"hostile","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"hi","x":${deep}}]}]}`,
      // One level over what a chat body may nest.
      `{"id":"hostile","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"hi","x":${JSON.stringify(nested(CHAT_BODY_DEPTH - 4))}}]}]}`,
    ]
    for (const body of bodies) {
      const response = await fetch(`${server.url}/v1/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error: { code: 'invalid-request', message: expect.stringContaining(`deeper than ${CHAT_BODY_DEPTH} levels`), details: { path: '/', limit: CHAT_BODY_DEPTH } } })
    }
    // Nothing was admitted: the session was not even created.
    expect((await fetch(`${server.url}/v1/sessions/hostile`)).status).toBe(404)
  })
})
