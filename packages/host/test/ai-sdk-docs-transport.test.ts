// docs/host.md's transport that sends the last message alone (a history with images soon passes
// the body limit) builds its own body, and the AI SDK sends that body instead of its default one:
// the example left out `messageId`, so useChat's edit of a sent message
// (`sendMessage({ text, messageId })`) reached the host as a plain resend of that id, and the chat
// showed the edited text with the first answer (67ee937's refusal never fired). Real HTTP on
// 127.0.0.1, JSONL files, ai 6's DefaultChatTransport configured as the docs show it.
import { describe, expect, it } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { listen } from '../src/index.js'
import { makeHost, perTest } from './helpers.js'

const t = perTest()

describe("AI SDK chat: the docs' last-message-only transport", () => {
  it("passes useChat's messageId on, so an edit of a sent message is refused as with the default transport", async () => {
    const { host, store } = makeHost(t.dir)
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, host, server)
    // As docs/host.md writes it.
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${server.url}/v1/ai-sdk/chat`,
      prepareSendMessagesRequest: ({ id, messages, body, trigger, messageId }) => ({ body: { ...body, id, trigger, messageId, messages: messages.slice(-1) } }),
    })
    const message = (text: string): UIMessage => ({ id: 'c-docs-u1', role: 'user', parts: [{ type: 'text', text }] })
    const first = await transport.sendMessages({ chatId: 'c-docs', messages: [message('hello')], trigger: 'submit-message', messageId: undefined, abortSignal: undefined })
    for await (const chunk of first) void chunk
    const edited = transport.sendMessages({ chatId: 'c-docs', messages: [message('hello again')], trigger: 'submit-message', messageId: 'c-docs-u1', abortSignal: undefined })
    await expect(edited).rejects.toThrow(/"code":"invalid-request".*"path":"\/messageId"/)
  })
})
