// A host whose lease was taken over learns it from the first write the database refuses (a
// fenced batch), not only from its next renewal (a third of the lease's TTL later): until then it
// kept the session open, answered `?wait=durable` sends 500 internal-error and took plain sends
// into an agent that can never write them (202, then lost), every retry included. Real
// PostgreSQL, hosts served on 127.0.0.1.
import { describe, expect, it } from 'vitest'
import { admissionsOf, answeredTurns, available, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

const send = async (url: string, path: string, body: unknown): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, body: await response.json() }
}

describe.skipIf(!available)('host cluster on PostgreSQL — a write refused because the lease was taken over', () => {
  const cluster = useCluster()
  const serve = useServers()

  /** Session `s`, made and run by host A, then taken over by host B while A still has it open (served on onA, onB). */
  const takenOver = async (options: Parameters<typeof cluster.hosts>[1] = {}) => {
    // Leases of 10 minutes: host A's renewal (every ~200 s) cannot be what tells it.
    const hosts = cluster.hosts(2, options)
    const [a, b] = hosts
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await send(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await send(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'first', content: 'hi' })).status).toBe(202)
    await waitFor(async () => (await a!.host.sessions.peek('s'))?.agent.status === 'idle', 30_000, 'the first turn over on A')

    // A stalls past its lease (as a paused process does): B's poll takes the session over.
    await cluster.sql(`UPDATE "${hosts.schema}".session_leases SET expires_at = clock_timestamp() - interval '1 millisecond' WHERE session_id = 's'`)
    await waitFor(async () => (await b!.store.leaseHolder('s'))?.owner === 'host-b', 30_000, 'host B to take the session over')
    expect(await a!.host.sessions.peek('s')).toBeDefined()
    return { a: a!, b: b!, onA, onB }
  }

  it('drops the session at once: the answer says session-locked, and the retry is relayed to the new owner and admitted once', { timeout: 90_000 }, async () => {
    const { a, b, onA } = await takenOver()

    // A send to A, which still has the session open: its batch is refused by the database.
    const refused = await send(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'second', content: 'sent to the old owner' })
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 409, code: 'session-locked' })
    await waitFor(async () => (await a.host.sessions.peek('s')) === undefined, 30_000, 'host A to drop the session it can no longer write')

    // The client's retry (same id) on A is relayed to B and admitted there, once.
    const retried = await send(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'second', content: 'sent to the old owner' })
    expect(retried.status, JSON.stringify(retried.body)).toBe(202)
    expect(admissionsOf((await b.store.read('s'))!.events, 'second')).toBe(1)
  })

  // A plain send (no `?wait=durable`) is answered 202 `durable: false` once its splice is in the
  // owner's memory; the store writes it behind. Its write fenced, the old owner dropped the session
  // and the message was lost, though its sender was told it was accepted. It is now handed to the
  // new owner through the mailbox and admitted there exactly once (cluster/hand-over.ts).
  it('a plain send accepted just before the fenced write reaches the new owner, admitted and answered once; a retry under the same id is a duplicate', { timeout: 90_000 }, async () => {
    const { a, b, onA, onB } = await takenOver()
    // Accepted in A's memory, not written (its turn's first flush is fenced; a send after that is relayed to B).
    const accepted = await send(onA, '/v1/sessions/s/messages', { clientMessageId: 'second', content: 'sent to the old owner' })
    expect({ status: accepted.status, durable: accepted.body.durable, duplicate: accepted.body.duplicate }, JSON.stringify(accepted.body)).toEqual({ status: 202, durable: false, duplicate: false })
    await waitFor(async () => (await a.host.sessions.peek('s')) === undefined, 30_000, 'host A to drop the session it can no longer write')
    const events = async () => (await b.store.read('s'))!.events
    await waitFor(async () => answeredTurns(await events(), 'second') === 1, 30_000, 'host B to answer the message A accepted')
    expect(admissionsOf(await events(), 'second')).toBe(1)

    // The sender's retries, on either host, admit nothing again; its lookup finds it on either.
    for (const url of [onA, onB]) {
      const retried = await send(url, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'second', content: 'sent to the old owner' })
      expect({ status: retried.status, duplicate: retried.body.duplicate }, JSON.stringify(retried.body)).toEqual({ status: 202, duplicate: true })
      expect((await (await fetch(`${url}/v1/sessions/s/messages/second`)).json() as { state: string }).state).toBe('claimed')
    }
    expect(admissionsOf(await events(), 'second')).toBe(1)
    expect(admissionsOf(await events(), 'first')).toBe(1)
  })

  // What A hands over is each message as the client left it: the splices after the durable point
  // are replayed. Before, it handed over every insertion's first version — a message the client
  // DELETEd ran on B, an edited one ran with its old text. A's writes wait for an explicit flush
  // (a batch window of an hour), so that nothing A does reaches the database before the fenced
  // flush of its turn: the injected messages park in next-step (an inject does not wake), the
  // client removes one and edits the other, then a plain follow-up wakes A, whose turn claims them
  // all and delivers them to a step in memory; the flush before its model request is fenced.
  it('hands over a message as last edited, not one the client removed; a message a turn claimed but never sent to the model is handed over', { timeout: 90_000 }, async () => {
    const { a, b, onA } = await takenOver({ store: (i) => (i === 0 ? { batchWindowMs: 3_600_000 } : {}) })
    const onALive = (await a.host.sessions.peek('s'))!
    const plain = async (id: string, content: string, delivery: string) => {
      const accepted = await send(onA, '/v1/sessions/s/messages', { clientMessageId: id, content, delivery })
      expect({ status: accepted.status, durable: accepted.body.durable }, JSON.stringify(accepted.body)).toEqual({ status: 202, durable: false })
    }
    await plain('edited', 'original text', 'inject')
    await plain('removed', 'deleted text', 'inject')
    const removed = await fetch(`${onA}/v1/sessions/s/inbox/removed`, { method: 'DELETE' })
    expect(removed.status, await removed.clone().text()).toBe(200)
    const edited = await fetch(`${onA}/v1/sessions/s/inbox/edited`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'edited text' }) })
    expect(edited.status, await edited.clone().text()).toBe(200)
    await plain('wakes', 'a follow-up', 'followup')
    await waitFor(async () => (await a.host.sessions.peek('s')) === undefined, 30_000, 'host A to drop the session it can no longer write')

    // A's turn had claimed all three and put them in a step — in memory; its model was never asked.
    const inMemory = onALive.agent.session.events
    const delivered = inMemory.filter((e) => e.type === 'user/message').map((e) => (e.data as { id: string }).id)
    expect(delivered).toEqual(expect.arrayContaining(['edited', 'wakes']))
    expect(inMemory.slice(inMemory.findIndex((e) => e.type === 'user/message' && (e.data as { id: string }).id === 'wakes')).some((e) => e.type === 'assistant/message')).toBe(false)

    const events = async () => (await b.store.read('s'))!.events
    await waitFor(async () => answeredTurns(await events(), 'wakes') === 1 && admissionsOf(await events(), 'edited') === 1, 30_000, 'host B to admit the messages A handed over and answer the follow-up')
    const admitted = (await events()).filter((e) => e.type === 'agent/inbox/spliced').flatMap((e) => (e.data as { inserted: { id: string; content: unknown }[] }).inserted)
    expect(admitted.find((m) => m.id === 'edited')?.content).toEqual([{ type: 'text', text: 'edited text' }])
    expect(admissionsOf(await events(), 'removed')).toBe(0)
    expect(admissionsOf(await events(), 'wakes')).toBe(1)
  })
})
