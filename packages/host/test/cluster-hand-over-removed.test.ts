// A host that lost a session because it was removed (its lease had expired, another process
// removed it, its next batch was refused with STALE_WRITER `details.removed`) must not hand the
// messages it accepted and never wrote to a next owner: there is none. Posted to the mailbox,
// they stayed pending for ever (their senders' lookups said `pending`) and the next session made
// under the id ran them — another user's private text in a new conversation. The store now refuses
// mail for a session it does not hold, and the hand-over says in one line that they went with the
// session. Real PostgreSQL, a host served on 127.0.0.1.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { postgresStore } from '@bosun/plugin-store-postgres'
import { available, post, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — messages of a removed session are not handed over', () => {
  const cluster = useCluster()
  const serve = useServers()
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('a plain send the host accepted just before the removal leaves no mail: its lookup is 404, and a session made again under the id has none', { timeout: 90_000 }, async () => {
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      const line = args.map(String).join(' ')
      if (line.includes('session s ')) lines.push(line)
    })
    const hosts = cluster.hosts(1)
    const a = hosts[0]!
    const onA = await serve(a)
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await post(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'first', content: 'hi' })).status).toBe(202)
    await waitFor(async () => (await a.host.sessions.peek('s'))?.agent.status === 'idle', 30_000, 'the first turn over on A')

    // Host A stalls past its lease (as a paused process does); another process removes the session
    // (an expired lease does not block a removal) while A still has it open.
    await cluster.sql(`UPDATE "${hosts.schema}".session_leases SET expires_at = clock_timestamp() - interval '1 millisecond' WHERE session_id = 's'`)
    const remover = postgresStore({ url: cluster.url(), schema: hosts.schema, owner: 'remover' })
    try {
      expect(await remover.remove('s')).toBe(true)
      // A, awake again, accepts a plain send into memory; its write is refused (the session is gone) and A drops the session.
      const accepted = await post(onA, '/v1/sessions/s/messages', { clientMessageId: 'late', content: 'PRIVATE text sent to the removed session' })
      const receipt = await accepted.json() as { durable?: boolean }
      expect({ status: accepted.status, durable: receipt.durable }, JSON.stringify(receipt)).toEqual({ status: 202, durable: false })
      await waitFor(async () => (await a.host.sessions.peek('s')) === undefined, 30_000, 'host A to drop the removed session')
      await waitFor(() => lines.length > 0, 30_000, 'the hand-over to say what became of the message')
      expect(lines).toEqual(['[bosun host] session s was removed while this host had it open: message "late", accepted here and not written, went with it (not handed over; its sender\'s lookup answers session-not-found).'])

      // Nothing left in the mailbox (before: pending for ever, listed by mailbox.sessions()).
      expect(await remover.mailbox.get('s', 'late')).toBeUndefined()
      expect(await remover.mailbox.sessions()).toEqual([])
      // The sender's lookup: 404, not `pending`.
      const lookup = await fetch(`${onA}/v1/sessions/s/messages/late`)
      expect({ status: lookup.status, code: ((await lookup.json()) as { error?: { code?: string } }).error?.code }).toEqual({ status: 404, code: 'session-not-found' })

      // A session made again under the id starts with no mail: nothing of the removed one runs in it.
      expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
      expect(await remover.mailbox.pending('s')).toEqual([])
    } finally {
      await remover.close()
    }
  })
})
