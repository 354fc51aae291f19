// A host that loses a session's lease — its renewal finds it taken over, or a write of it is fenced
// — drops the session. It did so without a word: the operator of that host saw a session stop with
// nothing saying why, to whom or what became of it. It now logs one line: the session, who took it
// at which epoch, what it stopped and handed over, who runs it now. Real PostgreSQL, hosts on 127.0.0.1.
import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { available, post, useCluster, useServers } from './cluster-helpers.js'
import { SseReader, waitFor } from './helpers.js'
import { leaseLostLine } from '../src/cluster/lease-lost.js'

describe.skipIf(!available)('host cluster on PostgreSQL — the log line of a lost lease', () => {
  const cluster = useCluster()
  const serve = useServers()
  afterEach(() => {
    vi.restoreAllMocks()
  })

  /** Every line logged that mentions a lost lease (the host logs through console.error). */
  const leaseLines = (): string[] => {
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      const line = args.map(String).join(' ')
      if (line.includes('lost its lease')) lines.push(line)
    })
    return lines
  }

  /** Session `s` made on host A (served on onA), its first turn over, then its lease expired and taken by host B. */
  const takenOver = async () => {
    const hosts = cluster.hosts(2)
    const [a, b] = hosts
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await post(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'first', content: 'hi' })).status).toBe(202)
    await waitFor(async () => (await a!.host.sessions.peek('s'))?.agent.status === 'idle', 30_000, 'the first turn over on A')
    const stream = new SseReader(await fetch(`${onA}/v1/sessions/s/stream`))
    await stream.until((frames) => frames.some((f) => f.event === 'hello'))
    await cluster.sql(`UPDATE "${hosts.schema}".session_leases SET expires_at = clock_timestamp() - interval '1 millisecond' WHERE session_id = 's'`)
    await waitFor(async () => (await b!.store.leaseHolder('s'))?.owner === 'host-b', 30_000, 'host B to take the session over')
    return { a: a!, b: b!, onA, onB, stream }
  }

  it('a renewal that finds the lease taken over: one line naming the session, the new owner and epoch, and what happens next', { timeout: 90_000 }, async () => {
    const lines = leaseLines()
    const { a, stream } = await takenOver()
    await a.store.renewLeases()
    await waitFor(() => lines.length > 0, 30_000, 'the lost lease to be logged')
    await waitFor(async () => (await a.host.sessions.peek('s')) === undefined, 30_000, 'host A to drop the session')
    expect(lines).toHaveLength(1)
    const line = lines[0]!
    expect(line).toMatch(/^\[bosun host\] session "s" lost its lease here: "host-b" took it over \(epoch 2; this host held epoch 1\)\./)
    expect(line).toContain('1 stream of it here ended')
    expect(line).toContain('"host-b" runs it now.')
    // No credential of the database: the throwaway cluster's password is in its URL.
    const password = new URL(cluster.url()).password
    if (password !== '') expect(line).not.toContain(password)
    await stream.cancel()
  })

  // Review R5: the renewal read who holds the lost lease before reporting it, and the host ran the
  // session's turn on beside its new owner while the read waited (a slow database, a busy pool).
  it('a renewal drops the session at once; the line naming the new owner follows once the store has read it', { timeout: 90_000 }, async () => {
    const lines = leaseLines()
    const hosts = cluster.hosts(1, { store: () => ({ poolSize: 10 }) })
    const a = hosts[0]!
    const onA = await serve(a)
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    expect(await a.host.sessions.peek('s')).toBeDefined()
    const leases = `"${hosts.schema}".session_leases`
    const waiting = async (pattern: string) =>
      (await cluster.sql(`SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [`${pattern}%`])).length > 0
    const holderRead = `SELECT %${leases} WHERE session_id = `
    const [takeover, blocker] = [new pg.Client({ connectionString: cluster.url() }), new pg.Client({ connectionString: cluster.url() })]
    try {
      await Promise.all([takeover.connect(), blocker.connect()])
      // Host B's takeover, not yet committed: A's renewal waits for the row...
      await takeover.query('BEGIN')
      await takeover.query(`UPDATE ${leases} SET owner = 'host-b', epoch = epoch + 1 WHERE session_id = 's'`)
      const renewal = a.store.renewLeases()
      await waitFor(() => waiting(`UPDATE ${leases}`), 30_000, 'the renewal to wait for the lease row')
      // ...and a lock queued behind it, granted as it ends, holds the holder's read that follows.
      await blocker.query('BEGIN')
      const locked = blocker.query(`LOCK TABLE ${leases} IN ACCESS EXCLUSIVE MODE`)
      await waitFor(() => waiting('LOCK TABLE'), 30_000, 'the table lock to queue')
      await takeover.query('COMMIT')
      await locked
      await waitFor(() => waiting(holderRead), 30_000, 'the holder read to wait')
      await waitFor(async () => (await a.host.sessions.peek('s')) === undefined, 30_000, 'host A to drop the session')
      // Dropped while the read still waits (before, only once it failed: statement_timeout, 30 s).
      expect(await waiting(holderRead)).toBe(true)
      await renewal
      expect(lines).toEqual([])
      await blocker.query('ROLLBACK')
      await waitFor(() => lines.length > 0, 30_000, 'the lost lease to be logged')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^\[bosun host\] session "s" lost its lease here: "host-b" took it over \(epoch 2; this host held epoch 1\)\./)
    } finally {
      // Their locks would hold the hosts' close.
      await Promise.all([takeover.end(), blocker.end()])
    }
  })

  it('a write fenced by the takeover: one line, naming the new owner and the accepted message handed to it', { timeout: 90_000 }, async () => {
    const lines = leaseLines()
    const { onA } = await takenOver()
    // A plain send to A, which still has the session open: accepted in memory, its batch fenced.
    const accepted = await post(onA, '/v1/sessions/s/messages', { clientMessageId: 'second', content: 'sent to the old owner' })
    expect(accepted.status).toBe(202)
    await waitFor(() => lines.length > 0, 30_000, 'the lost lease to be logged')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^\[bosun host\] session "s" lost its lease here: "host-b" took it over \(epoch 2; this host held epoch 1\)\./)
    expect(lines[0]).toContain('1 message accepted here and not yet written is posted to its mailbox for the next owner')
    expect(lines[0]).toContain('"host-b" runs it now.')
  })

  // Two hosts under one lease owner name (a config shared by the hosts that sets "owner"): each took
  // the other's sessions over at every request, cutting their turns, and the line named the "new
  // owner" as the host itself. It now says that two hosts share the name, and what to do.
  it('a session taken by the other host of the same name: the line says the owner is shared and what to do', { timeout: 90_000 }, async () => {
    const lines = leaseLines()
    const hosts = cluster.hosts(2, { store: () => ({ owner: 'shared-name' }), responses: () => [{ text: 'a long answer '.repeat(50), chunkSize: 5, delayMs: 20 }] })
    const [onA, onB] = [await serve(hosts[0]!), await serve(hosts[1]!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await post(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'first', content: 'hi' })).status).toBe(202)
    // B sees the lease under its own name, so it opens the session itself: A's lease is taken.
    expect((await post(onB, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'second', content: 'again' })).status).toBe(202)
    await waitFor(() => lines.length > 0, 30_000, 'the lost lease to be logged')
    expect(lines[0]).toMatch(/^\[bosun host\] session "s" lost its lease here: "shared-name" took it over \(epoch 2; this host held epoch 1\)\./)
    expect(lines[0]).toContain('But "shared-name" is this host\'s own lease owner name: another host (or bosun process) runs on this store under the same "owner"')
    expect(lines[0]).toContain('leave "owner" out of a config the hosts share')
  })
})

describe('leaseLostLine', () => {
  // The store's message as store-postgres words it (errors.ts, staleWriter): its last clause is advice to its API caller.
  const gone = Object.assign(new Error('PostgreSQL store postgres://db:5432/bosun: session "s" refused this writer\'s batch: its lease is gone. Nothing of it was stored; reopen the session to continue.'), { details: { epoch: '3' } })

  it('without a holder: the store\'s words without its advice to reopen the session, and that the next host to open it runs it', () => {
    expect(leaseLostLine('s', gone, { handedOver: 2, lost: 0, streams: 0, running: true, borrowed: false })).toBe(
      '[bosun host] session "s" lost its lease here: the store refused it (PostgreSQL store postgres://db:5432/bosun: session "s" refused this writer\'s batch: its lease is gone. Nothing of it was stored).'
      + ' This host stopped its agent: its turn under way here is canceled, 0 streams of it here ended (a client reconnecting is served from the store by any host),'
      + ' 2 messages accepted here and not yet written are posted to its mailbox for the next owner.'
      + ' The next host to open it runs it (a request, its mail, or failover once the lease has run out).',
    )
  })

  it('a session not open here, and a borrowed child', () => {
    const taken = Object.assign(new Error('taken'), { details: { epoch: '1', heldBy: 'host-b', heldEpoch: '2' } })
    expect(leaseLostLine('s', taken, undefined)).toBe('[bosun host] session "s" lost its lease here: "host-b" took it over (epoch 2; this host held epoch 1). It was not open here: nothing to stop. "host-b" runs it now.')
    expect(leaseLostLine('c', taken, { handedOver: 0, lost: 0, streams: 1, running: false, borrowed: true })).toContain("This host let it go (a subagent's child: its parent here stops it); 1 stream of it here ended")
    // Taken by another store of a different name: no word of a shared name.
    expect(leaseLostLine('s', taken, undefined, 'host-a')).not.toContain('own lease owner name')
  })
})
