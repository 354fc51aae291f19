// A message relayed to its owner and answered with an error (503 session-unavailable, 429, a run
// that threw: 500) was not admitted. On one host, sending it again under the same clientMessageId
// runs it again; so it does on a cluster: the post under that id reopens the mailbox entry, the
// owner runs it, and the sender gets the receipt — not the first error, fixed to the id for ever
// (the web composer resends the same text under the same id). Real PostgreSQL, two hosts served
// on 127.0.0.1; the owner's app made to answer (or throw on) chosen relayed requests once.
import { describe, expect, it } from 'vitest'
import { admissionsOf, available, onRelayed, useCluster, useServers, type ClusterHost } from './cluster-helpers.js'

type Receipt = { accepted: boolean; messageId: string; duplicate: boolean; status: string }

/** Makes `h`'s app fail the first relayed request for each message id `fails` names: `answer` (a route's error answer) or a throw. */
function failOnce(h: ClusterHost, fails: Record<string, 'throw' | { status: number; code: string }>): Map<string, number> {
  const runs = new Map<string, number>()
  onRelayed(h, async (request) => {
    const id = (JSON.parse((await request.clone().text()) || '{}') as { clientMessageId?: string }).clientMessageId
    if (id === undefined) return undefined
    const run = (runs.get(id) ?? 0) + 1
    runs.set(id, run)
    const fail = fails[id]
    if (run > 1 || fail === undefined) return undefined
    if (fail === 'throw') throw new Error('the run failed outside the route')
    return Response.json({ error: { code: fail.code, message: 'try again later' } }, { status: fail.status })
  })
  return runs
}

describe.skipIf(!available)('host cluster on PostgreSQL — a message sent again after an error answer', () => {
  const cluster = useCluster()
  const serve = useServers()
  const post = async (url: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: await response.json() }
  }

  it('is run again under the same clientMessageId and admitted once, as on one host', { timeout: 90_000 }, async () => {
    // A wait long enough never to end on a loaded machine: an answer is the owner's, never `pending`.
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 30_000, pollIntervalMs: 200 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    const runs = failOnce(a!, { busy: { status: 503, code: 'session-unavailable' }, limited: { status: 429, code: 'too-many-requests' }, thrown: 'throw' })

    for (const [id, status] of [['busy', 503], ['limited', 429], ['thrown', 500]] as const) {
      const first = await post(onB, '/v1/sessions/s/messages', { clientMessageId: id, content: `text of ${id}` })
      expect(first.status, JSON.stringify(first.body)).toBe(status)
      // Sent again, to the same host or the other non-owner way in: run again, admitted.
      const again = await post(onB, '/v1/sessions/s/messages', { clientMessageId: id, content: `text of ${id}` })
      expect(again.status, JSON.stringify(again.body)).toBe(202)
      expect(again.body).toMatchObject({ accepted: true, messageId: id, duplicate: false })
      expect((again.body as Receipt).status).not.toBe('pending')
      // A third time: the first receipt, a duplicate, not run again.
      const third = await post(onB, '/v1/sessions/s/messages', { clientMessageId: id, content: `text of ${id}` })
      expect({ status: third.status, duplicate: (third.body as Receipt).duplicate }).toEqual({ status: 202, duplicate: true })
      expect(runs.get(id)).toBe(2)
    }
    expect((await post(onB, '/v1/sessions/s/messages', { clientMessageId: 'x', content: 'x' })).status).toBe(202)
    const events = (await b!.store.read('s'))!.events
    for (const id of ['busy', 'limited', 'thrown', 'x']) expect(admissionsOf(events, id), id).toBe(1)
    // Its lookup follows it: in the log now, not the first error.
    const lookup = await fetch(`${onB}/v1/sessions/s/messages/busy`)
    expect(lookup.status).toBe(200)
  })

  it('two resends at once run it once: one is admitted, the other is its duplicate', { timeout: 90_000 }, async () => {
    const [a, b, c] = cluster.hosts(3, { host: { cluster: { relayWaitMs: 30_000, pollIntervalMs: 200 } } })
    const [onA, onB, onC] = [await serve(a!), await serve(b!), await serve(c!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    const runs = failOnce(a!, { busy: { status: 503, code: 'session-unavailable' } })
    expect((await post(onB, '/v1/sessions/s/messages', { clientMessageId: 'busy', content: 'hi' })).status).toBe(503)
    const both = await Promise.all([onB, onC].map((url) => post(url, '/v1/sessions/s/messages', { clientMessageId: 'busy', content: 'hi' })))
    expect(both.map((r) => r.status)).toEqual([202, 202])
    expect(both.map((r) => (r.body as Receipt).duplicate).sort()).toEqual([false, true])
    expect(runs.get('busy')).toBe(2)
    expect(admissionsOf((await b!.store.read('s'))!.events, 'busy')).toBe(1)
  })
  it("a sender whose error answer another send reopened before it read it is told the other's admission, marked duplicate", { timeout: 90_000 }, async () => {
    const [a, b, c] = cluster.hosts(3, { host: { cluster: { relayWaitMs: 30_000, pollIntervalMs: 200 } } })
    const [onA, onB, onC] = [await serve(a!), await serve(b!), await serve(c!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    // B's reads of the entry are held from the owner's first answer on, so that B's sender cannot
    // read that answer before C's send reopens the entry (on a busy machine, it can be that slow).
    const mailbox = b!.store.mailbox
    const read = mailbox.get.bind(mailbox)
    let holding = false
    let reading = 0
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let waiting!: () => void
    const held = new Promise<void>((resolve) => (waiting = resolve))
    mailbox.get = async (session, messageId) => {
      if (holding) {
        waiting()
        await released
      }
      reading++
      try {
        return await read(session, messageId)
      } finally {
        reading--
      }
    }
    let runs = 0
    onRelayed(a!, async (request) => {
      if (!(await request.clone().text()).includes('"busy"') || ++runs > 1) return undefined
      holding = true
      // A read B started before could still see this answer: it ends first.
      while (reading > 0) await new Promise((resolve) => setImmediate(resolve))
      return Response.json({ error: { code: 'session-unavailable', message: 'try again later' } }, { status: 503 })
    })

    const first = post(onB, '/v1/sessions/s/messages', { clientMessageId: 'busy', content: 'hi' })
    await held
    // The owner's 503 saved on the entry, unread by B's sender: C's send reopens it and is admitted.
    while ((await c!.store.mailbox.get('s', 'busy'))?.doneAt == null) await new Promise((resolve) => setImmediate(resolve))
    const second = await post(onC, '/v1/sessions/s/messages', { clientMessageId: 'busy', content: 'hi' })
    expect(second.status, JSON.stringify(second.body)).toBe(202)
    release()
    const answered = await first
    expect(answered.status, JSON.stringify(answered.body)).toBe(202)
    // One admission, one receipt that says so: B's sender's own answer (the 503) is gone, and the run it reads is C's.
    expect([(answered.body as Receipt).duplicate, (second.body as Receipt).duplicate]).toEqual([true, false])
    expect(runs).toBe(2)
    expect(admissionsOf((await b!.store.read('s'))!.events, 'busy')).toBe(1)
  })
})
