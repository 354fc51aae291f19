// The owner's commit of a splice marks delivered only the mailbox entry whose run made it (the
// owner claims an entry as it begins to run it): an entry of the same id posted while the owner's
// own admission of that id was not yet committed stays pending, and its run answers its sender.
// Before, that commit marked it delivered too: it never ran, a hand-over was never answered, and a
// client that sent one message to the owner and through another host at once waited relayWaitMs
// for `202 pending, duplicate: false`. Real PostgreSQL, two hosts on 127.0.0.1.
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '@bosun/core'
import { stepGate, waitFor } from './helpers.js'
import { available, heldSession, holdMail, useCluster, useServers, type ClusterHost } from './cluster-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — mailbox entries of an id the owner admitted by itself', () => {
  const cluster = useCluster()
  const serve = useServers()
  const call = async (url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${url}${path}`, body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: await response.json() }
  }
  const send = (url: string, body: object) => call(url, 'POST', '/v1/sessions/s/messages', body)
  /** Waits until A's commits of the session reach `seq` (B reads committed events only). */
  const committed = (b: ClusterHost, seq: number) => waitFor(async () => (await b.store.readEvents('s', seq, 1)).length === 1, 30_000, `A to commit seq ${seq}`)
  const start = async () => {
    const gate = stepGate()
    return { gate, ...(await heldSession(cluster, serve, gate)) }
  }

  it('a hand-over posted before the owner\'s edit of its id committed is run and answered', { timeout: 120_000 }, async () => {
    const { gate, a, b, onA } = await start()
    const four = await send(onA, { clientMessageId: 'c-4', content: 'four' })
    await committed(b, four.body.seq)
    const release = holdMail(a)
    // The hand-over (the message as last edited, the write committed after all) is posted, then the
    // edit's splice — which inserts c-4 again — is written and committed.
    const handOver = { method: 'POST', path: '/v1/sessions/s/messages?wait=durable', body: { clientMessageId: 'c-4', content: 'four, edited', delivery: 'followup' }, handOver: true }
    await b.store.mailbox.post('s', { messageId: 'c-4', kind: 'message', body: handOver as unknown as JsonValue })
    const edited = await call(onA, 'PATCH', '/v1/sessions/s/inbox/c-4', { content: 'four, edited' })
    expect(edited.status).toBe(200)
    await waitFor(async () => {
      const events = await b.store.readEvents('s', four.body.seq + 1)
      return events.some((e) => e.type === 'agent/inbox/spliced' && JSON.stringify(e.data).includes('four, edited')) || undefined
    }, 30_000, 'the edit committed')
    release()
    const done = await waitFor(async () => {
      const entry = await b.store.mailbox.get('s', 'c-4')
      return entry?.doneAt === null ? undefined : entry
    }, 30_000, 'the owner answered the hand-over')
    expect(done.outcome).toMatchObject({ status: 202, body: { messageId: 'c-4', duplicate: true, seq: four.body.seq } })
    gate.open()
  })

  it('one message sent to the owner and through another host at once is admitted once, and both answer its receipt', { timeout: 120_000 }, async () => {
    const { gate, a, b, onA, onB, schema } = await start()
    const release = holdMail(a)
    const locker = new pg.Client({ connectionString: cluster.url() })
    await locker.connect()
    let six: { status: number; body: any }
    let relayed: Promise<{ status: number; body: any }>
    try {
      // A's commits wait: c-6 is admitted on A, not yet committed, when B posts the same message.
      await locker.query('BEGIN')
      await locker.query(`LOCK TABLE "${schema}".session_events IN EXCLUSIVE MODE`)
      six = await send(onA, { clientMessageId: 'c-6', content: 'six' })
      expect(six.body).toMatchObject({ duplicate: false })
      relayed = send(onB, { clientMessageId: 'c-6', content: 'six' })
      await waitFor(async () => (await b.store.mailbox.get('s', 'c-6')) ?? undefined, 30_000, 'B to post c-6')
      await locker.query('COMMIT')
    } finally {
      await locker.end()
    }
    await committed(b, six.body.seq)
    release()
    const answer = await relayed
    expect(answer.status, JSON.stringify(answer.body)).toBe(202)
    expect(answer.body).toMatchObject({ messageId: 'c-6', duplicate: true, seq: six.body.seq })
    const { inbox } = (await call(onA, 'GET', '/v1/sessions/s')).body
    expect(inbox['next-turn'].map((m: { id: string }) => m.id)).toEqual(['c-6'])
    gate.open()
  })
})
