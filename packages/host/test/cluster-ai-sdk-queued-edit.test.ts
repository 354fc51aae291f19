// A chat message queued behind a running turn through a cluster host that does not own the
// session (remote-chat.ts), then edited (PATCH …/inbox/:messageId, sent to that host too): its
// stream, read from the events table, must not take the edit (a removal and an insertion in place,
// under the id) for a claim — it streams the turn that claims the edited message, and ends, as the
// owner's does (ai-sdk-queued-edit.test). Two hosts on a real PostgreSQL, real HTTP on 127.0.0.1,
// ai 6's DefaultChatTransport.
import { describe, expect, it } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { stepGate, waitFor } from './helpers.js'
import { available, useCluster, useServers } from './cluster-helpers.js'
import { collect, textOf, user } from './ai-sdk-chat-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — an AI SDK chat message queued on a non-owner, then edited', () => {
  const cluster = useCluster()
  const serve = useServers()

  it("the non-owner streams the turn that claims the edited message, and ends", async () => {
    const gate = stepGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin], responses: () => [{ text: 'first answer' }, { text: 'second answer' }] })
    const [urlA, urlB] = [await serve(a!), await serve(b!)]
    const send = (url: string, messages: UIMessage[]) => new DefaultChatTransport<UIMessage>({ api: `${url}/v1/ai-sdk/chat` }).sendMessages({ chatId: 'c-edit', messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined })

    const first = collect(await send(urlA, [user('u1', 'hello')]))
    await waitFor(() => gate.waiting > 0, 30_000, 'turn 1 held at its first step on A')
    const queued = collect(await send(urlB, [user('u1', 'hello'), user('u2', 'what about tea?')]))
    expect(await b!.store.leaseHolder('c-edit')).toMatchObject({ owner: 'host-a' })
    await waitFor(async () => (await a!.store.read('c-edit'))?.events.some((e) => e.type === 'agent/inbox/spliced' && (e.data as { inserted: { id: string }[] }).inserted.some((m) => m.id === 'u2')) === true, 30_000, 'u2 queued on A')
    const edit = await fetch(`${urlB}/v1/sessions/c-edit/inbox/u2`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'what about coffee?' }) })
    expect(edit.status).toBe(200)
    gate.open()
    await first.ended
    await waitFor(() => queued.done, 30_000, () => `B's stream of the edited message to end (it has ${JSON.stringify(queued.chunks)})`)

    expect(queued.chunks[0]).toEqual({ type: 'start', messageId: 'bosun-turn-2' })
    expect(textOf(queued.chunks)).toBe('second answer')
    expect(queued.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
    const loaded = (await (await fetch(`${urlB}/v1/ai-sdk/chat/c-edit/messages`)).json()) as UIMessage[]
    expect(loaded.map((m) => m.id)).toEqual(['u1', 'bosun-turn-1', 'u2', 'bosun-turn-2'])
    expect(loaded[2]).toEqual(user('u2', 'what about coffee?'))
  })
})
