import { describe, expect, it } from 'vitest'
import { definePlugin } from '@bosun/core'
import { json, req, stepGate, waitFor } from './helpers.js'
import { admissionsOf, available, turnsEnded, useCluster } from './cluster-helpers.js'

type Chunk = { type: string; delta?: string; data?: unknown }

/** The UI message chunks of an AI SDK stream read to its end (`data: [DONE]`). */
async function uiChunks(response: Response): Promise<Chunk[]> {
  expect(response.status).toBe(200)
  expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
  const text = await response.text()
  expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
  return text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)) as Chunk)
}

const chat = (id: string, messageId: string, text: string) => ({ id, messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }] })
const textOf = (chunks: Chunk[]) => chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta).join('')
/** The chunks with turn `n`'s number taken out of ids and data. */
const withoutTurn = (chunks: Chunk[], n: number) => JSON.parse(JSON.stringify(chunks).replaceAll(`bosun-turn-${n}"`, 'bosun-turn-N"').replaceAll(`-${n}-`, '-N-').replaceAll(`"turn":${n},`, '"turn":"N",'))
/** The chunk types with runs of deltas folded into one: the shape of a turn, whatever the chunking. */
const shapeOf = (chunks: Chunk[]) => chunks.map((c) => c.type).filter((t, i, all) => !(t.endsWith('-delta') && all[i - 1] === t))

describe.skipIf(!available)('host cluster on PostgreSQL — AI SDK routes and fork on any host', () => {
  const cluster = useCluster()

  it('the AI SDK chat POST on a host that does not own the session admits through the mailbox and streams the owner\'s turn', async () => {
    const responses = () => [{ text: 'answered on the owner', chunkSize: 4 }, { text: 'answered on the owner', chunkSize: 4 }]
    const [a, b] = cluster.hosts(2, { responses })
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'chat-1' })).status).toBe(201)

    const remote = await uiChunks(await req(b!.host, 'POST', '/v1/ai-sdk/chat', chat('chat-1', 'u-1', 'hello from b')))
    expect(await b!.store.leaseHolder('chat-1')).toMatchObject({ owner: 'host-a' })
    expect(textOf(remote)).toBe('answered on the owner')
    const local = await uiChunks(await req(a!.host, 'POST', '/v1/ai-sdk/chat', chat('chat-1', 'u-2', 'hello from a')))
    // The same parts as the owner sends for the same answer (ids aside: they carry the turn number).
    expect(withoutTurn(remote, 1)).toEqual(withoutTurn(local, 2))
    expect(shapeOf(remote)).toEqual(['start', 'data-bosun-queue', 'start-step', 'text-start', 'text-delta', 'text-end', 'finish-step', 'data-bosun-turn-end', 'finish'])
    expect(remote[0]).toEqual({ type: 'start', messageId: 'bosun-turn-1' })
    expect(remote.find((c) => c.type === 'data-bosun-turn-end')).toMatchObject({ data: { turn: 1, reason: { kind: 'completed' } } })

    // A retry of the same message on B replays its turn: admitted once.
    const again = await uiChunks(await req(b!.host, 'POST', '/v1/ai-sdk/chat', chat('chat-1', 'u-1', 'hello from b')))
    expect(textOf(again)).toBe('answered on the owner')
    expect(again[0]).toEqual({ type: 'start', messageId: 'bosun-turn-1' })
    await (await a!.host.sessions.peek('chat-1'))!.agent.session.flush()
    const { events } = (await a!.store.read('chat-1'))!
    expect(admissionsOf(events, 'u-1')).toBe(1)
    expect(turnsEnded(events)).toBe(2)

    // The owner's refusal comes back as it is (a message that is not the user's never reaches the mailbox).
    const bad = await req(b!.host, 'POST', '/v1/ai-sdk/chat', { id: 'chat-1', messages: [{ id: 'x', role: 'assistant', parts: [{ type: 'text', text: 'no' }] }] })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid-request' } })
    expect(await b!.store.mailbox.get('chat-1', 'x')).toBeUndefined()
  })

  it('the AI SDK resume route on a non-owner streams the open turn from the events table, and 204 when none is open', async () => {
    const gate = stepGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin], responses: () => [{ text: 'after the gate', chunkSize: 3 }] })
    await req(a!.host, 'POST', '/v1/sessions', { id: 'chat-2' })
    expect((await req(b!.host, 'GET', '/v1/ai-sdk/chat/chat-2/stream')).status).toBe(204)
    await req(a!.host, 'POST', '/v1/sessions/chat-2/messages?wait=durable', { clientMessageId: 'r-1', content: 'held' })
    await waitFor(() => gate.waiting === 1, 30_000, 'the turn to be held on A')
    await waitFor(async () => (await b!.store.read('chat-2'))!.events.some((e) => e.type === 'turn/start'), 30_000, 'the turn/start committed')
    // The gate opens once B answered: opened before, the turn could end and commit before B's
    // route read the events table, which then rightly had no open turn (204).
    const resumed = await req(b!.host, 'GET', '/v1/ai-sdk/chat/chat-2/stream')
    gate.open()
    const chunks = await uiChunks(resumed)
    expect(chunks[0]).toEqual({ type: 'start', messageId: 'bosun-turn-1' })
    expect(textOf(chunks)).toBe('after the gate')
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
    expect(await b!.store.leaseHolder('chat-2')).toMatchObject({ owner: 'host-a' })
  })

  it('fork on a non-owner copies the committed log up to its last ended turn into a new session, while the owner runs the next', async () => {
    // Steps of turn 1 pass; those of turn 2 wait until the test opens the gate.
    let open!: () => void
    const opened = new Promise<void>((resolve) => { open = resolve })
    let waiting = 0
    const gateAfterTurn1 = definePlugin({ name: 'gate-after-turn-1', setup(ctx) {
      ctx.hooks.preStep.tapPromise('gate-after-turn-1', async (decision, step) => {
        if (step.turn < 2) return decision
        waiting++
        await opened
        return decision
      })
    } })
    const [a, b] = cluster.hosts(2, { plugins: () => [gateAfterTurn1] })
    await req(a!.host, 'POST', '/v1/sessions', { id: 'parent' })
    await req(a!.host, 'POST', '/v1/sessions/parent/messages', { clientMessageId: 'p-1', content: 'first turn' })
    await waitFor(async () => turnsEnded((await a!.store.read('parent'))!.events) === 1, 30_000, 'turn 1 committed')
    // Turn 2 is held running on A: the stored log has its start, not its end.
    await req(a!.host, 'POST', '/v1/sessions/parent/messages', { clientMessageId: 'p-2', content: 'second turn' })
    await waitFor(() => waiting === 1, 30_000, 'turn 2 held on A')
    await waitFor(async () => (await a!.store.read('parent'))!.events.filter((e) => e.type === 'turn/start').length === 2, 30_000, 'turn 2 started in the store')

    const forked = await req(b!.host, 'POST', '/v1/sessions/parent/fork', { id: 'child' })
    expect(forked.status).toBe(201)
    expect(await forked.json()).toMatchObject({ id: 'child', parent: 'parent' })
    const parentLog = (await a!.store.read('parent'))!.events
    const cut = parentLog.findIndex((e) => e.type === 'turn/end') + 1
    const child = (await b!.store.read('child'))!
    expect(child.header).toMatchObject({ parent: 'parent', seedLength: cut + 1 })
    expect(child.events.slice(0, cut).map((e) => [e.seq, e.type])).toEqual(parentLog.slice(0, cut).map((e) => [e.seq, e.type]))
    expect(child.events[cut]!.type).toBe('session/end-seed')
    // The parent stays with its owner; the child is a cold session any host can open.
    expect(await b!.store.leaseHolder('parent')).toMatchObject({ owner: 'host-a' })
    expect((await b!.store.leaseHolder('child'))?.expiresInMs ?? 0).toBeLessThanOrEqual(0)
    expect((await req(b!.host, 'POST', '/v1/sessions/parent/fork', { id: 'child' })).status).toBe(409)
    // Turn 2 has not ended: the non-owner cannot fork after it.
    const late = await req(b!.host, 'POST', '/v1/sessions/parent/fork', { id: 'child-2', afterTurn: 2 })
    expect(late.status).toBe(400)
    expect(await late.json()).toMatchObject({ error: { code: 'invalid-request' } })
    const answered = await json(req(b!.host, 'POST', '/v1/sessions/child/messages?wait=durable', { clientMessageId: 'c-1', content: 'on the fork' }))
    expect(answered).toMatchObject({ accepted: true, durable: true })
    open()
    await waitFor(async () => turnsEnded((await a!.store.read('parent'))!.events) === 2, 30_000, 'turn 2 ended on A')
  })
})
