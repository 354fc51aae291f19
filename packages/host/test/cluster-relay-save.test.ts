// The owner ran a relayed request and its save of the answer failed (the database connection
// dropped under mailbox.complete): the entry is still pending, and the next round (a wake-up, the
// watcher's poll) must save the answer it kept, not run the request again — a cancel or queue edit
// would take effect twice, and its sender would get the second run's answer. Real PostgreSQL, two
// hosts: the owner's save is held on a row lock until it is seen waiting, then its connection is
// terminated (pg_terminate_backend).
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { available, onRelayed, useCluster, useServers, type ClusterHost } from './cluster-helpers.js'

/** Holds `h`'s first relayed run of a path ending in `suffix` until `release()`, counting the runs. */
function holdRun(h: ClusterHost, suffix: string) {
  let runs = 0
  let reached!: () => void
  const started = new Promise<void>((resolve) => (reached = resolve))
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  onRelayed(h, async (request) => {
    if (!new URL(request.url).pathname.endsWith(suffix)) return undefined
    runs++
    if (runs === 1) {
      reached()
      await released
    }
    return undefined
  })
  return { started, release, runs: () => runs }
}

/** Resolves once `check` does (a condition on the database, read again until it holds). */
async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const found = await check()
    if (found !== undefined) return found
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe.skipIf(!available)('host cluster on PostgreSQL — the owner fails to save an answer', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('the answer is saved by the next round, the request not run again', { timeout: 90_000 }, async () => {
    const hosts = cluster.hosts(2, { host: { cluster: { relayWaitMs: 30_000, pollIntervalMs: 200 } } })
    const [a, b] = hosts
    const [onA, onB] = [await serve(a!), await serve(b!)]
    const created = await fetch(`${onA}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 's' }) })
    expect(created.status).toBe(201)
    const held = holdRun(a!, '/cancel')
    const canceled = fetch(`${onB}/v1/sessions/s/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    await held.started

    // The entry's row locked, so the owner's save (an UPDATE of it) waits where it can be cut off.
    const locker = new pg.Client({ connectionString: cluster.url() })
    await locker.connect()
    try {
      await locker.query('BEGIN')
      const locked = await locker.query(`SELECT message_id FROM "${hosts.schema}".session_mailbox WHERE session_id = 's' AND done_at IS NULL FOR UPDATE`)
      expect(locked.rowCount).toBe(1)
      held.release()
      const pid = await until(async () => {
        const rows = await cluster.sql(`SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE "${hosts.schema}".session_mailbox m SET done_at%'`)
        return (rows[0] as { pid: number } | undefined)?.pid
      })
      expect((await cluster.sql('SELECT pg_terminate_backend($1) AS ended', [pid]))[0]).toEqual({ ended: true })
      await locker.query('ROLLBACK')
    } finally {
      await locker.end()
    }

    const response = await canceled
    const body = await response.json()
    expect(response.status, JSON.stringify(body)).toBe(200)
    expect(held.runs()).toBe(1)
    const [entry] = await cluster.sql(`SELECT done_at IS NOT NULL AS done FROM "${hosts.schema}".session_mailbox WHERE session_id = 's'`)
    expect(entry).toEqual({ done: true })
  })
})
