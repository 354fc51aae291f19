// The scale-out campaign (SPEC §13, issue #19): H host processes on one PostgreSQL schema, N
// sessions spread over them, a prompt stream per session sent to any host, a stream client per
// session on a host that (mostly) does not own it; one host SIGKILLed while its sessions are in
// the middle of turns. Then: every admitted message is answered exactly once, every log's seqs are
// contiguous, and every stream — those on the killed host resumed on another — received exactly
// the log's seqs. Each wait is bounded and says what was missing.
import { randomBytes } from 'node:crypto'
import { foldConsumedWork, type SessionEvent } from '@bosun/core'
import { postgresStore } from '@bosun/plugin-store-postgres'
import { startHost, type Host } from './hosts.js'
import { StreamClient } from './sse-client.js'

export interface ScaleOutOptions {
  /** A PostgreSQL URL the campaign may create a schema in. */
  url: string
  sessions: number
  hosts?: number
  /** The hosts' lease TTL: a dead host's sessions are taken over after at most this long. */
  leaseTtlMs?: number
  progress?: (line: string) => void
}

export interface ScaleOutReport {
  hosts: number
  sessions: number
  messages: number
  /** Receipts that said `pending` (the owner had not answered within the relay wait). */
  pendingReceipts: number
  /** Posts that failed on one host (killed) and were sent again, same clientMessageId, to another. */
  retriedPosts: number
  /** Sessions the killed host owned, and how many of them were in the middle of a turn. */
  victimSessions: number
  interruptedTurns: number
  /** Interrupted turns besides the kill's: live hosts whose lease ran out before they renewed it (overload), taken over. */
  extraInterruptions: number
  resumedStreams: number
  leaseTtlMs: number
  /** Kill → the first event the new owner wrote arriving at the session's stream client, per session the killed host owned (ms). */
  failoverMs: { p50: number; max: number }
  events: number
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Runs `fn` over `items` with at most `n` at a time. */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!)
  }))
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? NaN
}

/**
 * Turns that gave message `id` to the model (a `user/message` in a step) and ended. Exactly one
 * per admitted message: answered once. A turn the kill cut off counts — the crash repair keeps
 * what the model was given and streamed (SPEC §8) and re-queues only messages never stepped, so
 * such a message is not run again; the campaign checks those turns apart (only on the killed host's
 * sessions, at most one each).
 */
function answered(events: readonly SessionEvent[], id: string): number {
  return foldConsumedWork(events, 0).turns.filter((t) => t.stepped.includes(id) && t.end !== undefined).length
}

/** A log in one line (turns, splices, ends), for a failure message. */
function outline(events: readonly SessionEvent[]): string {
  return events.filter((e) => e.type.startsWith('turn/') || e.type === 'agent/inbox/spliced' || e.type === 'user/message').map((e) => {
    const d = e.data as { inserted?: { id: string }[]; removedCount?: number; target?: string; reason?: { kind: string }; turn?: number; id?: string }
    if (e.type === 'agent/inbox/spliced') return `${e.seq}:splice(${d.target} +[${(d.inserted ?? []).map((m) => m.id).join(',')}] -${d.removedCount ?? 0})`
    if (e.type === 'turn/end') return `${e.seq}:end(${d.reason?.kind})`
    return `${e.seq}:${e.type}`
  }).join(' ')
}

export async function runScaleOut(options: ScaleOutOptions): Promise<ScaleOutReport> {
  const H = options.hosts ?? 3
  const N = options.sessions
  const leaseTtlMs = options.leaseTtlMs ?? 4000
  const log = options.progress ?? (() => {})
  const schema = `scale_${randomBytes(5).toString('hex')}`
  const env = { PG_URL: options.url, SCHEMA: schema, LEASE_TTL_MS: String(leaseTtlMs) }
  const checker = postgresStore({ url: options.url, schema, owner: 'campaign-checker', poolSize: 4 })
  const hosts: Host[] = []
  const clients: StreamClient[] = []
  try {
    for (let h = 0; h < H; h++) hosts.push(await startHost(`host-${h}`, env))
    log(`${H} hosts listening`)
    const live = () => hosts.filter((h) => h.alive).map((h) => h.url)
    const ids = Array.from({ length: N }, (_, i) => `s-${i}`)
    // Each session is created on (so owned by) host i % H.
    await pool(ids, 16, async (id) => {
      const i = Number(id.slice(2))
      const response = await fetch(`${hosts[i % H]!.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }) })
      if (response.status !== 201) throw new Error(`creating ${id}: HTTP ${response.status} ${await response.text()}`)
    })
    for (const [i, id] of ids.entries()) {
      // Streams on the next host: one in H of them on the host that will be killed.
      const client = new StreamClient(id, () => live(), (i + 1) % H)
      clients.push(client)
      client.start()
    }
    log(`${N} sessions created, ${N} streams open`)

    let pendingReceipts = 0
    let retriedPosts = 0
    const messages: Array<{ session: string; id: string }> = []
    /** Posts to host `first` (any host, owner or not), and again to the next live host while one is unreachable or dying. */
    const post = async (session: string, id: string, first: number): Promise<void> => {
      messages.push({ session, id })
      for (let attempt = 0; attempt < 20; attempt++) {
        const urls = live()
        const url = urls[(first + attempt) % urls.length]!
        try {
          const response = await fetch(`${url}/v1/sessions/${session}/messages?wait=durable`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientMessageId: id, content: `${id} please` }) })
          const body = (await response.json()) as { status?: string; durable?: boolean }
          if (response.status === 202 && (body.durable === true || body.status === 'pending')) {
            if (body.status === 'pending') pendingReceipts++
            return
          }
          if (response.status < 500) throw new Error(`posting ${id}: HTTP ${response.status} ${JSON.stringify(body)}`)
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('posting')) throw error
        }
        retriedPosts++
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error(`posting ${id}: no live host admitted it after 20 attempts`)
    }
    // The prompt stream: each session gets a message, and the next once its stream showed the turn
    // end, until the kill — so at any moment many sessions are in the middle of a turn.
    let killed = false
    const ended = (c: StreamClient) => c.types.filter((t) => t === 'turn/end').length
    const sending = Promise.all(ids.map(async (s, i) => {
      for (let m = 0; !killed; m++) {
        await post(s, `${s}-m${m}`, i + m + 2)
        await waitUntil(() => killed || ended(clients[i]!) > m, 120_000 + N * 500, () => `session ${s}: the turn of message m${m} to end on its stream (${ended(clients[i]!)} ended)`)
      }
    }))

    // Kill host-0 once every one of its sessions had a message and some are in the middle of a turn (a chunk streamed, no end yet).
    const victim = hosts[0]!
    const victimIds = ids.filter((_, i) => i % H === 0)
    const midTurn = (c: StreamClient) => c.types.includes('assistant/chunk') && c.types.lastIndexOf('turn/start') > c.types.lastIndexOf('turn/end')
    const mid = () => victimIds.filter((id) => midTurn(clients[Number(id.slice(2))]!)).length
    await waitUntil(() => victimIds.every((id) => ended(clients[Number(id.slice(2))]!) >= 1) && mid() >= Math.ceil(victimIds.length / 5), 120_000 + N * 1000,
      () => `every session of ${victim.name} to have answered one message and a fifth of its ${victimIds.length} sessions to be mid-turn (${mid()} are)`)
    killed = true
    const killedAt = Date.now()
    victim.child.kill('SIGKILL')
    await waitUntil(() => !victim.alive, 30_000, () => `${victim.name} to exit after SIGKILL`)
    // What the dead host committed is all it will ever have: the next seq of each of its sessions is the new owner's first.
    const lengthsAtKill = new Map<string, number>()
    for (const id of victimIds) lengthsAtKill.set(id, (await checker.read(id))?.events.length ?? 0)
    log(`${victim.name} killed (${victimIds.length} sessions)`)
    await sending
    // The prompt stream continues after the kill, on the hosts that are left.
    await pool(ids, 24, (s) => post(s, `${s}-after`, Number(s.slice(2))))
    log(`${messages.length} messages admitted (${pendingReceipts} pending receipts, ${retriedPosts} posts retried on another host)`)

    // Every admitted message answered exactly once, in every log.
    const unanswered = async (): Promise<string[]> => {
      const missing: string[] = []
      await pool(ids, 8, async (s) => {
        const read = await checker.read(s)
        for (const m of messages.filter((x) => x.session === s)) if (answered(read?.events ?? [], m.id) !== 1) missing.push(m.id)
      })
      return missing
    }
    let missing: string[] = []
    let shown = ''
    await waitUntil(async () => {
      missing = await unanswered()
      if (missing.length > 0) shown = outline((await checker.read(missing[0]!.replace(/-(m\d+|after)$/, '')))?.events ?? [])
      return missing.length === 0
    }, 60_000 + N * 500, () => `every message answered once; not yet: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ` (+${missing.length - 10})` : ''}; the log of the first: ${shown}`)
    const logs = new Map<string, readonly SessionEvent[]>()
    let extraInterruptions = 0
    for (const s of ids) {
      const events = (await checker.read(s))!.events
      events.forEach((e, i) => {
        if (e.seq !== i) throw new Error(`session ${s}: event ${i} has seq ${e.seq}`)
      })
      for (const m of messages.filter((x) => x.session === s)) {
        const count = answered(events, m.id)
        if (count !== 1) throw new Error(`session ${s}: message ${m.id} answered ${count} times`)
      }
      // Beyond the kill's (one per doomed session), an interrupted turn is a takeover of a live host
      // that could not renew its lease in time (a starved machine): allowed, fenced, and reported.
      const interrupted = events.filter((e) => e.type === 'turn/end' && (e.data as { reason: { kind: string } }).reason.kind === 'interrupted').length
      extraInterruptions += Math.max(0, interrupted - (victimIds.includes(s) ? 1 : 0))
      logs.set(s, events)
    }
    log('every message answered exactly once; seqs contiguous')

    // Every stream received exactly the log, resumed on another host where its own died.
    await waitUntil(() => clients.every((c) => c.lastSeq >= logs.get(c.session)!.length - 1), 120_000,
      () => `streams to reach the end of their logs: ${clients.filter((c) => c.lastSeq < logs.get(c.session)!.length - 1).map((c) => `${c.session}@${c.lastSeq}/${logs.get(c.session)!.length - 1}`).slice(0, 10).join(', ')}`)
    for (const c of clients) {
      await c.stop()
      const expected = logs.get(c.session)!.map((e) => e.seq)
      if (c.problems.some((p) => !p.startsWith('stream on'))) throw new Error(c.problems.join('; '))
      if (c.seqs.length !== expected.length || c.seqs.some((seq, i) => seq !== expected[i])) throw new Error(`stream of ${c.session}: received ${c.seqs.length} seqs, the log has ${expected.length}`)
    }
    // Failover as a client sees it: kill → the first event the new owner wrote arrives on the session's stream.
    const failovers = victimIds.map((id) => {
      const c = clients[Number(id.slice(2))]!
      const index = c.seqs.indexOf(lengthsAtKill.get(id)!)
      return index < 0 ? NaN : c.arrivals[index]! - killedAt
    }).filter((ms) => !Number.isNaN(ms))
    const interruptedTurns = [...logs.values()].reduce((n, events) => n + events.filter((e) => e.type === 'turn/end' && (e.data as { reason: { kind: string } }).reason.kind === 'interrupted').length, 0)
    return {
      hosts: H,
      sessions: N,
      messages: messages.length,
      pendingReceipts,
      retriedPosts,
      victimSessions: victimIds.length,
      interruptedTurns,
      extraInterruptions,
      resumedStreams: clients.filter((c) => c.resumes > 0).length,
      leaseTtlMs,
      failoverMs: { p50: percentile(failovers, 0.5), max: Math.max(...failovers) },
      events: [...logs.values()].reduce((n, e) => n + e.length, 0),
    }
  } finally {
    await Promise.all(clients.map((c) => c.stop()))
    await Promise.all(hosts.map((h) => h.stop()))
    await checker.close().catch(() => {})
  }
}
