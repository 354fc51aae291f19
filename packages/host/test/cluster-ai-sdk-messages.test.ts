// GET /v1/ai-sdk/chat/:id/messages on a cluster host that does not own the session: a chat page
// reloaded through a load balancer loads the chat from whichever host answers. The non-owner
// reads the shared store (as its /events does), a page of events at a time, without taking the
// session: the same UIMessage[] as the owner's, and as the chat streamed. Two hosts on a real
// PostgreSQL, real HTTP on 127.0.0.1, ai 6's DefaultChatTransport and AbstractChat.
import { describe, expect, it } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { available, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'
import { PlainChat } from './ai-sdk-chat-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — loading an AI SDK chat back from a host that does not own it', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('the non-owner answers the owner\'s messages, read from the store in pages; no such session is 404', async () => {
    // B reads pages of 2 events: each turn spans pages.
    const [a, b] = cluster.hosts(2, {
      responses: () => [{ reasoning: 'thinking', text: 'first answer', chunkSize: 4 }, { text: 'second answer', chunkSize: 4 }],
      host: (i) => ({ limits: { keepAliveMs: 200, pageSize: i === 1 ? 2 : 1000 } }),
    })
    const urlA = await serve(a!)
    const urlB = await serve(b!)
    const chat = new PlainChat('c-load', new DefaultChatTransport<UIMessage>({ api: `${urlA}/v1/ai-sdk/chat` }))
    await chat.sendMessage({ text: 'hello' })
    await chat.sendMessage({ text: 'again' })
    expect(chat.status).toBe('ready')
    expect(await b!.store.leaseHolder('c-load')).toMatchObject({ owner: 'host-a' })

    const load = async (url: string, id = 'c-load') => fetch(`${url}/v1/ai-sdk/chat/${id}/messages`)
    // The chat ends when A's stream sends its finish, which can come before A's write-behind has
    // committed the turn's last events; B reads committed events only (a busy CI machine caught
    // it one turn short). So B is asked until its answer holds every message the chat has.
    const messages = await waitFor(async () => {
      const fromB = await load(urlB)
      expect(fromB.status).toBe(200)
      const answer = (await fromB.json()) as unknown[]
      return answer.length === chat.messages.length ? answer : undefined
    }, 30_000, 'B loads the whole chat once A committed it')
    expect(messages).toEqual(JSON.parse(JSON.stringify(chat.messages)))
    expect(messages).toEqual(await (await load(urlA)).json())
    // B read it without taking the session.
    expect(await b!.store.leaseHolder('c-load')).toMatchObject({ owner: 'host-a' })

    const missing = await load(urlB, 'nobody')
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('session-not-found')
  })
})
