// A message sent to host B for a session host A owns is relayed through the store's mailbox. When
// the session is removed between B's look at A's lease and B's post, the store refuses the post
// (SESSION_NOT_FOUND: mail cannot outlive its session, 120ffdd). The sender must be told the
// session is gone — 404 session-not-found — not 500 internal-error (which it was, F1's repro), and
// nothing of the message may be left. Real PostgreSQL, two hosts served on 127.0.0.1.
import { describe, expect, it } from 'vitest'
import { available, post, useCluster, useServers } from './cluster-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — a relay that meets a removal', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('answers 404 session-not-found when the session was removed just before the relay posted', { timeout: 90_000 }, async () => {
    const hosts = cluster.hosts(2)
    const [a, b] = hosts
    const onA = await serve(a!)
    const onB = await serve(b!)
    expect((await post(onA, '/v1/sessions', { id: 'x' })).status).toBe(201)
    // The removal commits between B's look at the lease (A holds it) and B's mailbox post.
    const mailbox = b!.store.mailbox
    const realPost = mailbox.post.bind(mailbox)
    let removedFirst = false
    mailbox.post = (async (...args: Parameters<typeof realPost>) => {
      await cluster.sql(`DELETE FROM "${hosts.schema}".sessions WHERE id = 'x'`)
      removedFirst = true
      return realPost(...args)
    }) as typeof realPost
    const answer = await post(onB, '/v1/sessions/x/messages', { clientMessageId: 'm1', content: 'hi' })
    const body = (await answer.json()) as { error?: { code?: string; message?: string } }
    expect(removedFirst).toBe(true)
    expect({ status: answer.status, code: body.error?.code }, JSON.stringify(body)).toEqual({ status: 404, code: 'session-not-found' })
    expect(body.error?.message).toContain('"x"')
    mailbox.post = realPost
    expect(await mailbox.sessions()).toEqual([])
  })
})
