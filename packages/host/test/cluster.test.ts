import { describe, expect, it } from 'vitest'
import { eventSeqs, json, req, SseReader, stepGate, waitFor } from './helpers.js'
import { admissionsOf, answeredTurns, available, turnsEnded, useCluster } from './cluster-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — any host admits, the owner writes', () => {
  const cluster = useCluster()

  it('a message admitted on a host that does not own the session is answered exactly once, by the owner', async () => {
    const [a, b] = cluster.hosts(2)
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 's1' })).status).toBe(201)
    expect(await a!.store.leaseHolder('s1')).toMatchObject({ owner: 'host-a' })

    const response = await req(b!.host, 'POST', '/v1/sessions/s1/messages', { clientMessageId: 'm-1', content: 'hello from b' })
    expect(response.status).toBe(202)
    const receipt = await json(response)
    // The owner's receipt, carried back through the mailbox: it is in the log, committed.
    expect(receipt).toMatchObject({ accepted: true, messageId: 'm-1', duplicate: false, lane: 'next-turn', delivery: 'followup', durable: true })
    expect(receipt.seq).toEqual(expect.any(Number))
    expect(await b!.store.mailbox.get('s1', 'm-1')).toMatchObject({ deliveredSeq: receipt.seq, doneAt: expect.any(Number) })

    await waitFor(async () => turnsEnded((await a!.store.read('s1'))!.events) === 1, 30_000, 'the owner to answer m-1')
    const { events } = (await a!.store.read('s1'))!
    expect(admissionsOf(events, 'm-1')).toBe(1)
    expect(events.filter((e) => e.type === 'assistant/message')).toHaveLength(1)
    expect(await b!.store.leaseHolder('s1')).toMatchObject({ owner: 'host-a' })
    // Where it went, asked on the host that admitted it: a fold of the log.
    expect(await json(req(b!.host, 'GET', '/v1/sessions/s1/messages/m-1'))).toMatchObject({ messageId: 'm-1', state: 'claimed' })
  })

  it('mailbox admission is idempotent by clientMessageId over HTTP, on either host', async () => {
    const [a, b] = cluster.hosts(2)
    await req(a!.host, 'POST', '/v1/sessions', { id: 's2' })
    const first = await json(req(b!.host, 'POST', '/v1/sessions/s2/messages', { clientMessageId: 'dup', content: 'once' }))
    const again = await json(req(b!.host, 'POST', '/v1/sessions/s2/messages', { clientMessageId: 'dup', content: 'once' }))
    const onOwner = await json(req(a!.host, 'POST', '/v1/sessions/s2/messages', { clientMessageId: 'dup', content: 'once' }))
    expect(first).toMatchObject({ duplicate: false })
    expect(again).toMatchObject({ duplicate: true, seq: first.seq })
    expect(onOwner).toMatchObject({ duplicate: true, seq: first.seq })
    await waitFor(async () => turnsEnded((await a!.store.read('s2'))!.events) === 1, 30_000, 'the turn of "dup"')
    expect(admissionsOf((await a!.store.read('s2'))!.events, 'dup')).toBe(1)
  })

  it('a receipt not answered within relayWaitMs is pending, with an id to look up; the owner still carries it out', async () => {
    const gate = stepGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin], host: { cluster: { relayWaitMs: 0, pollIntervalMs: 200 } } })
    await req(a!.host, 'POST', '/v1/sessions', { id: 's3' })
    await req(a!.host, 'POST', '/v1/sessions/s3/messages', { clientMessageId: 'run', content: 'a held turn' })
    await waitFor(() => gate.waiting === 1, 30_000, 'the turn to be held')
    const pending = await json(req(b!.host, 'POST', '/v1/sessions/s3/messages', { clientMessageId: 'p-1', content: 'later' }))
    expect(pending).toMatchObject({ accepted: true, messageId: 'p-1', status: 'pending', durable: true, lookup: '/v1/sessions/s3/messages/p-1' })
    const states = new Set<string>()
    await waitFor(async () => {
      const r = await json(req(b!.host, 'GET', pending.lookup))
      states.add(r.state)
      return r.state === 'queued' && r.lane === 'next-turn' && r.position === 0
    }, 30_000, 'p-1 to be queued by the owner')
    expect([...states].every((s) => s === 'pending' || s === 'queued')).toBe(true)
    const cancel = await json(req(b!.host, 'POST', '/v1/sessions/s3/cancel', {}))
    expect(cancel).toMatchObject({ accepted: true, status: 'pending', requestId: expect.stringMatching(/^_request:/) })
    const answered = await waitFor(async () => {
      const r = await json(req(b!.host, 'GET', cancel.lookup))
      return r.status === 'pending' ? undefined : r
    }, 30_000, 'the owner to carry out the cancel')
    expect(answered).toMatchObject({ canceled: true, keepInbox: false })
    await waitFor(async () => (await json(req(b!.host, 'GET', pending.lookup))).state === 'canceled', 30_000, 'p-1 canceled with the queue')
    expect(admissionsOf((await a!.store.read('s3'))!.events, 'p-1')).toBe(1)
    gate.open()
  })

  it('a stream on host B carries the events host A writes, with no gap or duplicate, and resumes by seq', async () => {
    const [a, b] = cluster.hosts(2)
    await req(a!.host, 'POST', '/v1/sessions', { id: 's4' })
    const stream = new SseReader(await req(b!.host, 'GET', '/v1/sessions/s4/stream'))
    await req(a!.host, 'POST', '/v1/sessions/s4/messages', { clientMessageId: 'x-1', content: 'first' })
    await req(b!.host, 'POST', '/v1/sessions/s4/messages', { clientMessageId: 'x-2', content: 'second' })
    await waitFor(async () => turnsEnded((await a!.store.read('s4'))!.events) === 2, 30_000, 'two turns on the owner')
    const stored = (await a!.store.read('s4'))!.events
    const last = stored.length - 1
    const frames = await stream.until((f) => eventSeqs(f).includes(last), 30_000)
    expect(frames[0]!.event).toBe('hello')
    expect(eventSeqs(frames)).toEqual(stored.map((e) => e.seq))
    expect(frames.filter((f) => f.event === 'session.event').map((f) => f.data.type)).toEqual(stored.map((e) => e.type))
    expect(frames.some((f) => f.event === 'session.inbox')).toBe(true)
    expect(frames.filter((f) => f.event === 'session.status').map((f) => f.data.status)).toEqual(['running', 'idle', 'running', 'idle'])
    await stream.cancel()

    const mid = Math.floor(last / 2)
    const resumed = new SseReader(await req(b!.host, 'GET', '/v1/sessions/s4/stream', undefined, { 'last-event-id': String(mid) }))
    const again = await resumed.until((f) => eventSeqs(f).includes(last), 30_000)
    expect(eventSeqs(again)).toEqual(stored.slice(mid + 1).map((e) => e.seq))
    await resumed.cancel()
    // The fingerprint of the log up to the cursor (what a reconnecting client checks) is the
    // same from the events table on B as from the owner's live log on A.
    const owner = new SseReader(await req(a!.host, 'GET', '/v1/sessions/s4/stream', undefined, { 'last-event-id': String(mid) }))
    const ownerHello = (await owner.until((f) => f.some((frame) => frame.event === 'hello'), 30_000))[0]!
    await owner.cancel()
    expect(again[0]).toMatchObject({ event: 'hello', data: { prefix: { seq: mid, hash: expect.stringMatching(/^[0-9a-f]{16}$/) } } })
    expect((again[0]!.data as { prefix: unknown }).prefix).toEqual((ownerHello.data as { prefix: unknown }).prefix)
  })

  it('queue edits, removal and cancel sent to the non-owner are carried out by the owner', async () => {
    const gate = stepGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin] })
    await req(a!.host, 'POST', '/v1/sessions', { id: 's5' })
    await req(a!.host, 'POST', '/v1/sessions/s5/messages', { clientMessageId: 'run', content: 'running turn' })
    await waitFor(() => gate.waiting === 1, 30_000, 'the first step to be held')
    await req(a!.host, 'POST', '/v1/sessions/s5/messages', { clientMessageId: 'q-1', content: 'queued one' })
    await req(a!.host, 'POST', '/v1/sessions/s5/messages', { clientMessageId: 'q-2', content: 'queued two' })

    const edited = await req(b!.host, 'PATCH', '/v1/sessions/s5/inbox/q-1', { content: 'edited on b' })
    expect(edited.status).toBe(200)
    expect(await edited.json()).toMatchObject({ edited: 'q-1' })
    const removed = await req(b!.host, 'DELETE', '/v1/sessions/s5/inbox/q-2')
    expect(await removed.json()).toMatchObject({ removed: 'q-2' })
    const missing = await req(b!.host, 'DELETE', '/v1/sessions/s5/inbox/q-2')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: { code: 'queue-item-not-found' } })
    const live = (await a!.host.sessions.peek('s5'))!
    expect(live.agent.inbox.nextTurn.map((m) => [m.id, m.content])).toEqual([['q-1', [{ type: 'text', text: 'edited on b' }]]])

    const canceled = await req(b!.host, 'POST', '/v1/sessions/s5/cancel', { keepInbox: true })
    expect(await canceled.json()).toMatchObject({ canceled: true, keepInbox: true })
    await waitFor(async () => (await a!.store.read('s5'))!.events.some((e) => e.type === 'turn/end'), 30_000, 'the canceled turn in the log')
    const { events } = (await a!.store.read('s5'))!
    expect(events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['aborted'])
    gate.open()
  })

  it('failover: a session whose owner stopped renewing is taken over by another host, repaired, and its queue continues', async () => {
    const gate = stepGate()
    // A long TTL: the owner's own renewal cannot race the test's expiry of its lease.
    const hosts = cluster.hosts(2, { plugins: () => [gate.plugin], leaseTtlMs: 600_000 })
    const [a, b] = hosts
    await req(a!.host, 'POST', '/v1/sessions', { id: 's6' })
    await req(a!.host, 'POST', '/v1/sessions/s6/messages', { clientMessageId: 'run', content: 'interrupted by the failover' })
    await waitFor(() => gate.waiting === 1, 30_000, 'the turn on host A to be held')
    await req(a!.host, 'POST', '/v1/sessions/s6/messages?wait=durable', { clientMessageId: 'next', content: 'queued behind it' })

    // Host A "dies": its lease runs out without being released (its renewal is minutes away).
    await cluster.sql(`UPDATE "${hosts.schema}".session_leases SET expires_at = clock_timestamp() - interval '1 millisecond' WHERE session_id = 's6'`)
    await waitFor(async () => (await b!.store.leaseHolder('s6'))?.owner === 'host-b', 30_000, 'host B to take the session over')
    // A's next renewal finds the lease taken: it drops the session (its writes are fenced anyway).
    await a!.store.renewLeases()
    await waitFor(async () => (await a!.host.sessions.peek('s6')) === undefined, 30_000, 'host A to drop the session')
    gate.open()

    const done = async () => {
      const states = await Promise.all(['run', 'next'].map(async (m) => json(req(b!.host, 'GET', `/v1/sessions/s6/messages/${m}`))))
      return states.every((st) => st.state === 'claimed' && st.turnEnd !== undefined && st.turnEnd !== 'interrupted') ? states : undefined
    }
    await waitFor(done, 30_000, 'both messages answered on host B')
    await waitFor(async () => (await b!.host.sessions.peek('s6'))?.agent.status === 'idle', 30_000, 'host B idle')
    await (await b!.host.sessions.peek('s6'))!.agent.session.flush()
    const { events } = (await b!.store.read('s6'))!
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i))
    // "run": admitted on A, re-queued by B's crash repair; "next": admitted once. Each answered once.
    expect(admissionsOf(events, 'run')).toBe(2)
    expect(admissionsOf(events, 'next')).toBe(1)
    expect(answeredTurns(events, 'run')).toBe(1)
    expect(answeredTurns(events, 'next')).toBe(1)
    // The interrupted turn was closed by the crash repair; nothing A held after the takeover is in the log.
    expect(events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)[0]).toBe('interrupted')
  })
})
