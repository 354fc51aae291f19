import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { BosunError } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, event, header, until, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — leases and fencing', () => {
  const pg = usePostgres()
  const stores = (schema = pg.schema(), leaseTtlMs = 60_000) => {
    const made = (owner: string) => postgresStore({ url: pg.url(), schema, owner, leaseTtlMs })
    return { schema, a: made('host-a'), b: made('host-b') }
  }
  /** Ends a lease as a host that stopped renewing would leave it: expired on the database clock, not released. */
  const expire = (schema: string, session: string) =>
    pg.sql(`UPDATE "${schema}".session_leases SET expires_at = clock_timestamp() - interval '1 millisecond' WHERE session_id = $1`, [session])

  it('a live lease refuses another host (SESSION_LOCKED, naming the holder and its time left)', async () => {
    const { a, b } = stores()
    const created = await a.create(header('s'))
    const refused = await b.open('s').catch((error: unknown) => error)
    expect(BosunError.is(refused, 'SESSION_LOCKED')).toBe(true)
    expect((refused as BosunError).details).toMatchObject({ session: 's', owner: 'host-a', expiresInMs: expect.any(Number) })
    expect((refused as BosunError).details.expiresInMs).toBeGreaterThan(0)
    expect(String((refused as Error).message)).not.toContain(new URL(pg.url()).password)
    // The holder may be a bosun process that died (a killed \`bosun run\`): it keeps the lease until
    // then, so the message says when to retry rather than only "after it stops".
    expect(String((refused as Error).message)).toMatch(/"host-a" \(a host or another bosun process\) holds its lease for another \d+ ms and renews it while it runs: send the request to it or stop it; if it died \(a crash, a kill\), retry once that time has passed\.$/)
    await created.writer.close()
    // Closing the writer releases the lease: the other host takes it at once, with the next epoch.
    const opened = await b.open('s')
    expect(opened?.writer).toBeDefined()
    expect(await b.leaseHolder('s')).toMatchObject({ owner: 'host-b', epoch: '2' })
    await opened!.writer.close()
    await Promise.all([a.close(), b.close()])
  })

  it('a stale owner cannot write one more event once its expired lease is taken over (STALE_WRITER)', async () => {
    const { schema, a, b } = stores()
    const lost: string[] = []
    a.onLeaseLost((session) => lost.push(session))
    const first = await a.create(header('fenced'))
    first.writer.append(event(0))
    first.writer.append(event(1))
    await first.writer.flush()
    await expire(schema, 'fenced')
    const second = await b.open('fenced')
    expect(second?.events.map((e) => e.seq)).toEqual([0, 1])
    expect(await b.leaseHolder('fenced')).toMatchObject({ owner: 'host-b', epoch: '2' })

    // The old owner's next batch is refused inside its transaction, whatever seq it brings.
    first.writer.append(event(2))
    const refused = await first.writer.flush().catch((error: unknown) => error)
    expect(BosunError.is(refused, 'STALE_WRITER')).toBe(true)
    // Names the epoch and owner that took it over (a single batch read the epoch of its own lease row only: "epoch ?").
    expect(String((refused as Error).message)).toContain('its lease was taken over (epoch 2, owner "host-b")')
    // The refused batch says the lease is lost at once (a host drops the session before it answers
    // the request that flushed), not at the next renewal, a third of the TTL later; said once.
    expect(lost).toEqual(['fenced'])
    expect((refused as BosunError).details).toMatchObject({ epoch: '1', heldBy: 'host-b', heldEpoch: '2' })
    await a.renewLeases()
    expect(lost).toEqual(['fenced'])

    second!.writer.append(event(2, { by: 'b' }))
    await second!.writer.flush()
    expect((await pg.sql<{ seq: number; data: string }>(`SELECT seq, data FROM "${schema}".session_events WHERE session_id = 'fenced' ORDER BY seq`)).map((r) => r.data))
      .toEqual(['{"n":0}', '{"n":1}', '{"by":"b"}'])
    await first.writer.close().catch(() => {})
    // The stale writer's close releases nothing: the lease is still b's.
    expect(await b.leaseHolder('fenced')).toMatchObject({ owner: 'host-b', epoch: '2' })
    await second!.writer.close()
    await Promise.all([a.close(), b.close()])
  })

  // The renewal's report named no one ("taken over by another owner"): the host that lost the
  // session could not log which host runs it now. It is reported at once, and named once read
  // (takeover-race.test: the report does not wait for the read).
  it('a renewal that finds a lease taken over reports it once, then names the new holder and its epoch', async () => {
    const { schema, a, b } = stores()
    const lost: Array<{ session: string; error: Error; named: Promise<Error> | undefined }> = []
    a.onLeaseLost((session, error, named) => lost.push({ session, error, named }))
    const first = await a.create(header('renewal'))
    await expire(schema, 'renewal')
    const second = await b.open('renewal')
    await a.renewLeases()
    expect(lost.map((l) => l.session)).toEqual(['renewal'])
    expect(BosunError.is(lost[0]!.error, 'STALE_WRITER')).toBe(true)
    const error = await lost[0]!.named!
    expect(BosunError.is(error, 'STALE_WRITER')).toBe(true)
    expect(error.message).toContain('its lease was taken over (epoch 2, owner "host-b")')
    expect((error as BosunError).details).toMatchObject({ session: 'renewal', epoch: '1', heldBy: 'host-b', heldEpoch: '2' })
    await a.renewLeases()
    expect(lost).toHaveLength(1)
    await first.writer.close().catch(() => {})
    await second!.writer.close()
    await Promise.all([a.close(), b.close()])
  })

  it('a lease that is not renewed expires on the database clock and is listed for failover', async () => {
    const { schema, a, b } = stores()
    const created = await a.create(header('quiet'))
    created.writer.append(event(0))
    await created.writer.flush()
    expect(await b.expiredLeases()).toEqual([])
    // a stops renewing. Its close released the lease; put it back as a killed host leaves it:
    // not released, running out 300 ms from now on the database clock.
    await a.close()
    await pg.sql(`UPDATE "${schema}".session_leases SET expires_at = clock_timestamp() + interval '300 milliseconds'`)
    await expect(b.open('quiet')).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_LOCKED'))
    await until(async () => (await b.expiredLeases()).length === 1, 'the lease to expire')
    expect(await b.expiredLeases()).toEqual([{ id: 'quiet', owner: 'host-a', epoch: '1' }])
    const taken = await b.open('quiet')
    expect(taken?.events).toHaveLength(1)
    expect(await b.expiredLeases()).toEqual([])
    await taken!.writer.close()
    await b.close()
  })

  it('renewal keeps a lease alive past its TTL (every third of it, on the database clock); release expires it at once', async () => {
    const schema = pg.schema()
    // Renewed every 1.5 s: only an event loop or a database stalled for 4.5 s would let it lapse.
    const a = postgresStore({ url: pg.url(), schema, owner: 'host-a', leaseTtlMs: 4_500 })
    const b = postgresStore({ url: pg.url(), schema, owner: 'host-b', leaseTtlMs: 4_500 })
    const created = await a.create(header('renewed'))
    const { first } = (await pg.sql<{ first: Date }>(`SELECT expires_at AS first FROM "${schema}".session_leases WHERE session_id = 'renewed'`))[0]!
    // Past the first expiry on the database clock, the lease is still a's: it was renewed.
    await until(async () => (await pg.sql<{ past: boolean }>('SELECT clock_timestamp() > $1 AS past', [first]))[0]!.past, 'the first expiry to pass')
    expect((await a.leaseHolder('renewed'))!.expiresInMs).toBeGreaterThan(0)
    await expect(b.open('renewed')).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_LOCKED'))
    await created.writer.close()
    expect((await a.leaseHolder('renewed'))!.expiresInMs).toBeLessThan(0)
    const taken = await b.open('renewed')
    expect(await b.leaseHolder('renewed')).toMatchObject({ owner: 'host-b', epoch: '2' })
    await taken!.writer.close()
    await Promise.all([a.close(), b.close()])
  })

  it('hosts racing to take a free session: exactly one wins each round, epochs rise by one (property)', async () => {
    const schema = pg.schema()
    const hosts = ['h1', 'h2', 'h3', 'h4'].map((owner) => postgresStore({ url: pg.url(), schema, owner, leaseTtlMs: 60_000, poolSize: 2 }))
    await (await hosts[0]!.create(header('race'))).writer.close()
    let epoch = 1
    await fc.assert(
      fc.asyncProperty(fc.subarray([0, 1, 2, 3], { minLength: 2 }), async (racers) => {
        const results = await Promise.allSettled(racers.map((i) => hosts[i]!.open('race')))
        const winners = results.filter((r) => r.status === 'fulfilled')
        expect(winners).toHaveLength(1)
        for (const r of results) if (r.status === 'rejected') expect(BosunError.is(r.reason, 'SESSION_LOCKED')).toBe(true)
        const holder = await hosts[0]!.leaseHolder('race')
        expect(holder?.epoch).toBe(String(++epoch))
        // Each winner writes one event; seqs stay contiguous across owners.
        const won = (winners[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof hosts[0]['open']>>>).value!
        won.writer.append(event(won.events.length))
        await won.writer.close()
      }),
      { numRuns: 15 },
    )
    const seqs = (await pg.sql<{ seq: number }>(`SELECT seq FROM "${schema}".session_events WHERE session_id = 'race' ORDER BY seq`)).map((r) => r.seq)
    expect(seqs).toEqual([...Array(15).keys()])
    await Promise.all(hosts.map((h) => h.close()))
  })

  it('two opens of one session in the same store at once: one wins, the other is SESSION_LOCKED, and the winner can write', async () => {
    const { a } = stores()
    await (await a.create(header('twice'))).writer.close()
    const results = await Promise.allSettled([a.open('twice'), a.open('twice')])
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value!] : []))
    expect(won).toHaveLength(1)
    expect(results.some((r) => r.status === 'rejected' && BosunError.is(r.reason, 'SESSION_LOCKED'))).toBe(true)
    won[0]!.writer.append(event(0))
    await won[0]!.writer.close()
    expect((await a.read('twice'))?.events).toHaveLength(1)
    await a.close()
  })

  it('the primary key refuses a seq stored twice even past the length check (STALE_WRITER)', async () => {
    const { schema, a } = stores()
    const s = await a.create(header('pk'))
    // Damage as a buggy tool might: a row ahead of the session's length.
    await pg.sql(`INSERT INTO "${schema}".session_events (session_id, seq, type, time, data) VALUES ('pk', 0, 'test/value', 1, '{}')`)
    s.writer.append(event(0))
    await expect(s.writer.flush()).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    await s.writer.close().catch(() => {})
    await a.close().catch(() => {})
  })

  it("wakeCheck: another owner's live lease on the session or a subagent ancestor, and pending mail, in one query", async () => {
    const { schema, a, b } = stores()
    const child = (id: string, parent: string) => header(id, { delegation: { parentSessionId: parent, callId: 'c', depth: 1, mode: 'one-shot' } })
    const root = await a.create(header('g'))
    for (const [id, parent] of [['p', 'g'], ['c', 'p'], ['x', 'y'], ['y', 'x']] as const) await (await b.create(child(id, parent))).writer.close()
    // The grandparent is A's: the child is held elsewhere for B (its open would be refused), not for A.
    expect(await b.wakeCheck('c')).toEqual({ heldElsewhere: true, pendingMail: false })
    expect(await a.wakeCheck('c')).toEqual({ heldElsewhere: false, pendingMail: false })
    await b.mailbox.post('c', { messageId: 'm1', body: { hello: 1 } })
    expect(await b.wakeCheck('c')).toEqual({ heldElsewhere: true, pendingMail: true })
    // An expired lease holds nothing; nor does a released one.
    await expire(schema, 'g')
    expect(await b.wakeCheck('c')).toEqual({ heldElsewhere: false, pendingMail: true })
    // Headers naming each other (a damaged store) end the walk; an unknown session is undefined.
    expect(await b.wakeCheck('x')).toEqual({ heldElsewhere: false, pendingMail: false })
    expect(await b.wakeCheck('nobody')).toBeUndefined()
    await root.writer.close().catch(() => {})
    await Promise.all([a.close(), b.close()])
  })
})
