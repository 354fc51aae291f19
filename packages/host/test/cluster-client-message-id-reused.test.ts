// On a cluster, as on one host (client-message-id-reused.test.ts): a send under a clientMessageId
// the session admitted with other content or delivery is 422 client-message-id-reused — compared by
// the host the send reaches with the id's mailbox entry (which keeps the message as sent), or by
// the owner with its log — and a retry after an edit is a plain duplicate. A hand-over (the
// message as last edited) of an id the owner's log has is answered a duplicate, not 422, and a
// client's retry of the first version is its duplicate too. Real PostgreSQL, two hosts on 127.0.0.1.
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '@bosun/core'
import { stepGate, waitFor } from './helpers.js'
import { available, heldSession, holdMail, useCluster, useServers } from './cluster-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — a clientMessageId reused for another message', () => {
  const cluster = useCluster()
  const serve = useServers()
  const call = async (url: string, method: string, path: string, body: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${url}${path}`, body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: await response.json() }
  }
  const send = (url: string, body: object) => call(url, 'POST', '/v1/sessions/s/messages', body)
  const refusedFor = (answer: { status: number; body: any }, differs: string[]) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(422)
    expect(answer.body.error).toMatchObject({ code: 'client-message-id-reused', details: { path: '/clientMessageId', differs } })
  }

  it('is refused by the host it reaches and by the owner; retries after an edit and hand-overs are duplicates', { timeout: 120_000 }, async () => {
    const gate = stepGate()
    const { a, b, onA, onB } = await heldSession(cluster, serve, gate)

    // Sent through B (a mailbox entry), then edited: the retry of the send is its duplicate, on either host.
    const first = await send(onB, { clientMessageId: 'c-2', content: 'hello' })
    expect(first.body).toMatchObject({ duplicate: false, lane: 'next-turn' })
    expect((await call(onB, 'PATCH', '/v1/sessions/s/inbox/c-2', { content: 'hello, edited' })).status).toBe(200)
    for (const url of [onB, onA]) {
      const retry = await send(url, { clientMessageId: 'c-2', content: 'hello' })
      expect(retry.status, JSON.stringify(retry.body)).toBe(202)
      expect(retry.body).toMatchObject({ messageId: 'c-2', duplicate: true, seq: first.body.seq })
    }
    // Another message under it: refused by B from the mailbox entry, by A from its log.
    refusedFor(await send(onB, { clientMessageId: 'c-2', content: 'hello, edited' }), ['content'])
    refusedFor(await send(onB, { clientMessageId: 'c-2', content: 'hello', delivery: 'steer' }), ['delivery'])
    refusedFor(await send(onA, { clientMessageId: 'c-2', content: 'other', delivery: 'inject' }), ['content', 'delivery'])

    // Admitted on the owner (no mailbox entry), then another message under its id through B: the
    // owner refuses it; the first message sent again through B is its duplicate (the entry reopens).
    const direct = await send(onA, { clientMessageId: 'c-3', content: 'three' })
    expect(direct.body).toMatchObject({ duplicate: false })
    refusedFor(await send(onB, { clientMessageId: 'c-3', content: 'not three' }), ['content'])
    const again = await send(onB, { clientMessageId: 'c-3', content: 'three' })
    expect(again.status, JSON.stringify(again.body)).toBe(202)
    expect(again.body).toMatchObject({ duplicate: true, seq: direct.body.seq })

    // A hand-over of c-4 as edited, which the owner's log has already (the write was committed after all).
    const four = await send(onA, { clientMessageId: 'c-4', content: 'four' })
    expect((await call(onA, 'PATCH', '/v1/sessions/s/inbox/c-4', { content: 'four, edited' })).status).toBe(200)
    const handOver = { method: 'POST', path: '/v1/sessions/s/messages?wait=durable', body: { clientMessageId: 'c-4', content: 'four, edited', delivery: 'followup' }, handOver: true }
    await b.store.mailbox.post('s', { messageId: 'c-4', kind: 'message', body: handOver as unknown as JsonValue })
    const done = await waitFor(async () => {
      const entry = await b.store.mailbox.get('s', 'c-4')
      return entry?.doneAt === null ? undefined : entry
    }, 30_000, 'the owner answered the hand-over')
    expect(done.outcome).toMatchObject({ status: 202, body: { messageId: 'c-4', duplicate: true, seq: four.body.seq } })
    // The client's retry of what it sent is its duplicate, though the entry holds the edit.
    expect((await send(onB, { clientMessageId: 'c-4', content: 'four' })).body).toMatchObject({ duplicate: true, seq: four.body.seq })
    expect((await call(onB, 'GET', '/v1/sessions/s/messages/c-4', undefined)).status).toBe(200)

    // Nothing else was admitted: each id queued once, as last edited (a PATCH splices its id again: the log is not counted).
    const { inbox } = (await call(onA, 'GET', '/v1/sessions/s', undefined)).body
    expect(inbox['next-turn'].map((m: { id: string; content: unknown }) => [m.id, m.content])).toEqual([
      ['c-2', [{ type: 'text', text: 'hello, edited' }]], ['c-3', [{ type: 'text', text: 'three' }]], ['c-4', [{ type: 'text', text: 'four, edited' }]],
    ])
    expect(inbox['next-step']).toEqual([])
    gate.open()
  })

  // The owner's commit marks delivered the mailbox entries of an id its splice inserts that it has
  // claimed: an entry posted (through B) while the owner's own admission of the id was still
  // uncommitted, and run (so claimed) and refused before that commit, is marked delivered by it,
  // though its run admitted nothing. The log says what the id admitted: the entry's text is
  // compared with nothing.
  it('an entry marked delivered by the owner\'s own admission of its id is judged by the log', { timeout: 120_000 }, async () => {
    const gate = stepGate()
    const { a, b, onA, onB, schema } = await heldSession(cluster, serve, gate)
    const events = `"${schema}".session_events`
    const blocker = new pg.Client({ connectionString: cluster.url() })
    await blocker.connect()
    let direct: { status: number; body: any }
    try {
      // A's commits wait: c-3 is admitted on A, not yet committed, when B's send of another text under it is posted.
      await blocker.query('BEGIN')
      await blocker.query(`LOCK TABLE ${events} IN EXCLUSIVE MODE`)
      direct = await send(onA, { clientMessageId: 'c-3', content: 'three' })
      expect(direct.body).toMatchObject({ duplicate: false })
      refusedFor(await send(onB, { clientMessageId: 'c-3', content: 'not three' }), ['content'])
      await blocker.query('COMMIT')
    } finally {
      await blocker.end()
    }
    await waitFor(async () => (await b.store.mailbox.get('s', 'c-3'))?.deliveredSeq === direct.body.seq || undefined, 30_000, 'the commit of c-3 to mark the entry delivered')
    // The entry holds the refused text: the first message sent again is its duplicate, the refused one is refused.
    const again = await send(onB, { clientMessageId: 'c-3', content: 'three' })
    expect(again.status, JSON.stringify(again.body)).toBe(202)
    expect(again.body).toMatchObject({ messageId: 'c-3', duplicate: true, seq: direct.body.seq })
    refusedFor(await send(onB, { clientMessageId: 'c-3', content: 'not three' }), ['content'])

    // The same, the entry posted before A's commit and not read by A's drain until after it: the
    // commit leaves it pending (A had not claimed it: cluster-mailbox-claim.test.ts), and A's run
    // of it refuses it once A reads its mail. A's reads of its mail see none until then.
    const release = holdMail(a)
    const locker = new pg.Client({ connectionString: cluster.url() })
    await locker.connect()
    let five: { status: number; body: any }
    let refused: Promise<{ status: number; body: any }>
    try {
      await locker.query('BEGIN')
      await locker.query(`LOCK TABLE ${events} IN EXCLUSIVE MODE`)
      five = await send(onA, { clientMessageId: 'c-5', content: 'five' })
      refused = send(onB, { clientMessageId: 'c-5', content: 'not five' })
      await waitFor(async () => (await b.store.mailbox.get('s', 'c-5')) ?? undefined, 30_000, 'B to post c-5')
      await locker.query('COMMIT')
    } finally {
      await locker.end()
    }
    await waitFor(async () => (await b.store.readEvents('s', five.body.seq, 1)).length === 1, 30_000, 'A to commit c-5')
    expect((await b.store.mailbox.get('s', 'c-5'))?.deliveredSeq).toBeNull()
    release()
    refusedFor(await refused, ['content'])
    expect((await b.store.mailbox.get('s', 'c-5'))?.doneAt).toEqual(expect.any(Number))
    expect((await send(onB, { clientMessageId: 'c-5', content: 'five' })).body).toMatchObject({ messageId: 'c-5', duplicate: true, seq: five.body.seq })

    const { inbox } = (await call(onA, 'GET', '/v1/sessions/s', undefined)).body
    expect(inbox['next-turn'].map((m: { id: string; content: unknown }) => [m.id, m.content])).toEqual([['c-3', [{ type: 'text', text: 'three' }]], ['c-5', [{ type: 'text', text: 'five' }]]])
    gate.open()
  })
})
