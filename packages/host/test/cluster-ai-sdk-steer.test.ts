// A steer sent through the AI SDK chat route of a cluster host that does not own the session
// (remote-chat.ts: the session runs on another host; a load balancer sent useChat's second
// request elsewhere) while the chat's turn runs there. Its stream is that turn from its start,
// the same parts under the same message id as the owner's stream of it, as on the owner
// (ai-sdk-steer.test): useChat keeps one message per id and each open request writes it whole,
// so a stream of the turn from the steer on replaced the answer before the steer. Two hosts on a
// real PostgreSQL, real HTTP on 127.0.0.1, ai 6's DefaultChatTransport and AbstractChat.
import { describe, expect, it } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { stepGate, waitFor } from './helpers.js'
import { available, useCluster, useServers, type ClusterHost } from './cluster-helpers.js'
import { collect, expectSteeredTurn, expectWholeTurnIn, PlainChat, user } from './ai-sdk-chat-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — an AI SDK chat steer sent to a host that does not own the session', () => {
  const cluster = useCluster()
  const serve = useServers()

  /**
   * Two hosts, each session's turn held at its first step until `gate.open()`; its steps answer in
   * turn. B reads the events table back in pages of `pageB` events.
   */
  const twoHosts = async (pageB?: number): Promise<{ gate: ReturnType<typeof stepGate>; a: ClusterHost; b: ClusterHost; urlA: string; urlB: string }> => {
    const gate = stepGate()
    const host = (i: number) => (i === 1 && pageB !== undefined ? { limits: { keepAliveMs: 200, pageSize: pageB } } : {})
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin], responses: () => [{ text: 'first answer', chunkSize: 4 }, { text: 'brief answer', chunkSize: 4 }], host })
    return { gate, a: a!, b: b!, urlA: await serve(a!), urlB: await serve(b!) }
  }

  /** Until the owner's turn/start is in the events table: the non-owner's steer stream starts reading after it. */
  const turnStartCommitted = (h: ClusterHost, id: string) => waitFor(async () => (await h.store.read(id))?.events.some((e) => e.type === 'turn/start') === true, 30_000, 'the turn/start committed')

  it('streams the owner\'s turn from its start, the same parts as the owner\'s stream, and ends', async () => {
    // Pages of 2: the turn's start is found pages back from the event that names the turn.
    const { gate, a, b, urlA, urlB } = await twoHosts(2)
    const send = (url: string, messages: UIMessage[], body?: object) => new DefaultChatTransport<UIMessage>({ api: `${url}/v1/ai-sdk/chat` }).sendMessages({ chatId: 'c-steer', messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined, ...(body ? { body } : {}) })

    const first = collect(await send(urlA, [user('u1', 'hello')]))
    await waitFor(() => gate.waiting > 0, 30_000, 'the first step held at pre-step on A')
    await turnStartCommitted(a, 'c-steer')
    const steer = collect(await send(urlB, [user('u1', 'hello'), user('s1', 'be brief')], { bosun: { delivery: 'steer' } }))
    expect(await b.store.leaseHolder('c-steer')).toMatchObject({ owner: 'host-a' })
    gate.open()
    await first.ended
    await waitFor(() => steer.done, 30_000, () => `B's steer stream to end (it has ${JSON.stringify(steer.chunks)})`)

    expectSteeredTurn(first, steer)
  })

  it("useChat's message is the whole turn when its steer went to another host than its first message", async () => {
    const { gate, a, urlA, urlB } = await twoHosts()
    // useChat's requests through a load balancer: the first to A (it creates the session and owns it), the steer to B.
    let calls = 0
    const transport = new DefaultChatTransport<UIMessage>({ api: '/v1/ai-sdk/chat', prepareSendMessagesRequest: ({ id, messages, body }) => ({ api: `${calls++ === 0 ? urlA : urlB}/v1/ai-sdk/chat`, body: { id, messages, ...body } }) })
    const chat = new PlainChat('c-usechat', transport)

    const first = chat.sendMessage({ text: 'hello' })
    await waitFor(() => gate.waiting > 0, 30_000, 'the first step held at pre-step on A')
    await waitFor(() => chat.messages.some((m) => m.role === 'assistant'), 30_000, 'the first stream to start its message')
    await turnStartCommitted(a, 'c-usechat')
    const steered = chat.sendMessage({ text: 'be brief' }, { body: { bosun: { delivery: 'steer' } } })
    await waitFor(() => chat.messages.length === 3 && calls === 2, 30_000, 'the steer sent to B')
    // Admitted on A (B relays it after reading where the log ends): B's stream reads on from before its claim.
    const steerId = chat.messages[2]!.id
    await waitFor(async () => (await a.store.read('c-usechat'))?.events.some((e) => e.type === 'agent/inbox/spliced' && (e.data as { inserted: { id: string }[] }).inserted.some((m) => m.id === steerId)) === true, 30_000, 'the steer admitted on A')
    gate.open()
    await Promise.all([first, steered])

    expectWholeTurnIn(chat)
  })
})
