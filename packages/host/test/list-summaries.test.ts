// GET /v1/sessions, the host stream's hello and GET /v1/sessions/:id/children build a stored
// session's row from its store's list entry (the summary each store keeps: length, last activity,
// the per-queue counts, the header's delegation) and read no log; a session whose stored summary
// an earlier build wrote (no per-queue counts) is read whole, alone. The rows are those a full
// read gives (the log folded by the host's inbox fold). Real JSONL files, the memory store and a
// real PostgreSQL (a throwaway cluster), each behind a wrapper that counts the logs read.
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createAgent, createUserMessage, LOG_FORMAT_VERSION, memoryStore, summarizeLog, type SessionEvent, type SessionHeader, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { postgresStore } from '@bosun/plugin-store-postgres'
import { postgresAvailable, startPostgres, type PostgresServer } from '@bosun/testkit'
import { createHost, type Host } from '../src/index.js'
import { foldInbox } from '../src/log.js'
import { sessionSummary } from '../src/summary.js'
import { json, req, SseReader, tempDir } from './helpers.js'

const delegation = { parentSessionId: 'plain', callId: 'call-1', depth: 1, mode: 'one-shot' as const }
const header = (id: string, extra: Partial<SessionHeader> = {}): SessionHeader => ({ id, version: LOG_FORMAT_VERSION, createdAt: 1_700_000_000_000, ...extra })
const message = (id: string) => createUserMessage(`text of ${id}`, { id })
const splice = (target: 'next-turn' | 'next-step', start: number, inserted: string[], removedCount?: number, outcome?: 'moved') =>
  ['agent/inbox/spliced', { target, start, inserted: inserted.map(message), ...(removedCount === undefined ? {} : { removedCount }), ...(outcome ? { outcome } : {}) }] as const

// Every turn ended: a PostgreSQL host shows a turn left open as running (its live status).
const turnEnd = ['turn/end', { turn: 1, reason: { kind: 'completed' } }] as const

/** The sessions every store gets: both queues moved, an empty log, a subagent's child, a fork whose seed queued messages of its parent. */
const sessions: { header: SessionHeader; seed?: [string, object][]; events: (readonly [string, object])[] }[] = [
  {
    header: header('plain'),
    events: [
      ['turn/start', { turn: 1 }], ['user/message', createUserMessage('hello', { id: 'u1' })],
      splice('next-turn', 0, ['a', 'b']), splice('next-step', 0, ['c']), splice('next-turn', 0, [], 1),
      // A move: c leaves next-step and is queued at the end of next-turn.
      splice('next-step', 0, [], 1, 'moved'), splice('next-turn', 1, ['c']), turnEnd,
    ],
  },
  { header: header('empty'), events: [] },
  { header: header('kid', { delegation }), events: [splice('next-step', 0, ['k1', 'k2']), ['turn/start', { turn: 1 }], turnEnd] },
  {
    header: header('fork', { parent: 'plain', seedLength: 2 }),
    seed: [[...splice('next-turn', 0, ['s1', 's2', 's3'])], ['session/end-seed', {}]],
    events: [splice('next-turn', 3, ['f1'])],
  },
]

async function fill(store: Store): Promise<void> {
  for (const { header, seed = [], events } of sessions) {
    const seedEvents = seed.map(([type, data], seq) => Object.freeze({ seq, time: 1_700_000_000_000 + seq, type, data }) as SessionEvent)
    const created = await store.create(header, seedEvents)
    let seq = seedEvents.length
    for (const [type, data] of events) created.writer.append(Object.freeze({ seq, time: 1_700_000_001_000 + seq++ * 1000, type, data }) as SessionEvent)
    await created.writer.close()
  }
}

/** A session's row as a full read makes it: its whole log, folded by the host's inbox fold. */
async function fullReadRow(store: Store, id: string) {
  const stored = (await store.open(id))!
  await stored.writer.close()
  const { header, events } = stored
  const inbox = foldInbox(events, header.seedLength ?? 0)
  return {
    id, createdAt: header.createdAt, ...(header.parent === undefined ? {} : { parent: header.parent }),
    ...(header.delegation ? { parentSessionId: header.delegation.parentSessionId } : {}),
    loaded: false, status: 'idle', lastSeq: events.length - 1, lastEventAt: events.at(-1)?.time ?? null,
    queue: { 'next-turn': inbox['next-turn'].length, 'next-step': inbox['next-step'].length },
    firstPrompt: summarizeLog(header, events).firstPrompt,
  }
}

/** `store`, counting the sessions whose log is read or opened through it. */
function counting(store: Store): { store: Store; reads: string[] } {
  const reads: string[] = []
  const wrapped = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (typeof value !== 'function') return value
      if (key === 'read' || key === 'open') {
        return (id: string) => {
          reads.push(id)
          return (value as (id: string) => Promise<unknown>).call(target, id)
        }
      }
      return (value as (...args: unknown[]) => unknown).bind(target)
    },
  })
  return { store: wrapped, reads }
}

const hosts: Host[] = []
/** Stores a test made, closed after its hosts. */
const closeLast: Store[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
  for (const store of closeLast.splice(0)) await store.close()
})

function hostOn(store: Store): Host {
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }), limits: { keepAliveMs: 200 } })
  hosts.push(host)
  return host
}

type Row = { id: string; delegation?: unknown }

/** The list, the stream's hello and the children of `plain`, through `host`. */
async function lists(host: Host) {
  const listed = (await json<{ sessions: Row[] }>(req(host, 'GET', '/v1/sessions'))).sessions
  const feed = new SseReader(await req(host, 'GET', '/v1/stream'))
  const frames = await feed.until((all) => all.some((f) => f.event === 'hello'), 30_000)
  await feed.cancel()
  const hello = (frames.find((f) => f.event === 'hello')!.data as { sessions: Row[] }).sessions
  const children = (await json<{ children: Row[] }>(req(host, 'GET', '/v1/sessions/plain/children'))).children
  return { listed, hello, children }
}

/** Checks the three lists against the full-read rows of `store`'s sessions. */
async function expectFullReadRows(store: Store, got: Awaited<ReturnType<typeof lists>>): Promise<void> {
  const expected = await Promise.all(sessions.map((s) => fullReadRow(store, s.header.id)))
  const byId = <T extends Row>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id))
  const sorted = byId(expected)
  expect(byId(got.listed)).toEqual(sorted)
  expect(byId(got.hello)).toEqual(sorted)
  expect(got.children).toEqual([{ ...expected.find((row) => row.id === 'kid'), delegation }])
  // The counts these sessions were made to have (so that the rows above are not all zeros).
  expect(sorted.map((row) => [row.id, row.lastSeq, row.queue])).toEqual([
    ['empty', -1, { 'next-turn': 0, 'next-step': 0 }],
    ['fork', 2, { 'next-turn': 1, 'next-step': 0 }],
    ['kid', 2, { 'next-turn': 0, 'next-step': 2 }],
    ['plain', 7, { 'next-turn': 2, 'next-step': 0 }],
  ])
}

describe('host lists from the stores\' summaries', () => {
  let dir: string
  let cleanup: () => Promise<void>
  beforeAll(async () => ({ dir, cleanup } = await tempDir()))
  afterAll(() => cleanup())

  it('JSONL: no log read for the list, the hello or the children; a sidecar of the earlier format (no per-queue counts) makes that session alone read', async () => {
    const folder = join(dir, 'jsonl')
    // Each store closed once done with (the host's after the host): a store left open keeps its journal file open.
    const writer = jsonlStore({ dir: folder })
    await fill(writer)
    await writer.close()
    const served = jsonlStore({ dir: folder })
    const reference = jsonlStore({ dir: folder })
    closeLast.push(served, reference)
    const { store, reads } = counting(served)
    const host = hostOn(store)
    const got = await lists(host)
    expect(reads).toEqual([])
    await expectFullReadRows(reference, got)

    // The sidecar the build before per-queue counts wrote: the store folds on from it (its tail
    // alone) and lists that session without `queued`, so the host reads that log for the counts.
    const sidecar = join(folder, 'plain.summary.json')
    const value = JSON.parse(await readFile(sidecar, 'utf8')) as { format: number; fold: { queued?: [number, number]; pending?: number } }
    const [nextTurn, nextStep] = value.fold.queued!
    delete value.fold.queued
    await writeFile(sidecar, JSON.stringify({ ...value, format: 1, fold: { ...value.fold, pending: nextTurn + nextStep } }))
    const again = await lists(host)
    // Read for the list and the hello (it is no one's child): that session alone.
    expect(reads).toEqual(['plain', 'plain'])
    await expectFullReadRows(reference, again)
  })

  it('memory: the rows from its list (it has no read: they were lastSeq -1, queue null before)', async () => {
    const memory = memoryStore()
    await fill(memory)
    const { store, reads } = counting(memory)
    const got = await lists(hostOn(store))
    expect(reads).toEqual([])
    await expectFullReadRows(memory, got)
  })
})

const available = postgresAvailable()

describe.skipIf(!available)('host lists from the PostgreSQL store\'s summaries', () => {
  let server: PostgresServer | undefined
  let admin: pg.Pool | undefined
  beforeAll(async () => {
    server = await startPostgres()
    admin = new pg.Pool({ connectionString: server.url, max: 2 })
    admin.on('error', () => {})
  }, 180_000)
  afterAll(async () => {
    await admin?.end()
    await server?.stop()
  }, 120_000)

  it('no log read while the summaries are current; a summary an earlier build wrote (no per-queue counts) makes that session alone read', async () => {
    const schema = `l_${randomBytes(6).toString('hex')}`
    const make = () => postgresStore({ url: server!.url, schema, owner: 'lister', poolSize: 4, leaseTtlMs: 600_000 })
    const writer = make()
    const reference = make()
    const plain = make()
    try {
      await fill(writer)
      const { store, reads } = counting(plain)
      const host = hostOn(store)
      expect(reads).toEqual([])
      const got = await lists(host)
      expect(reads).toEqual([])
      await expectFullReadRows(reference, got)
      // One session alone (a host stream's status frame for a session cold here): its row from
      // Store.summary and Store.header, no log read either.
      const alone = async () => Promise.all(sessions.map(({ header }) => sessionSummary(host.sessions, store, header.id)))
      const expected = await Promise.all(sessions.map(({ header }) => fullReadRow(reference, header.id)))
      const withDelegation = expected.map((row) => (row.id === 'kid' ? { ...row, delegation } : row))
      expect(await alone()).toEqual(withDelegation)
      expect(reads).toEqual([])

      // What the build before per-queue counts wrote for `kid`: the same fields without `queued`.
      const [{ summary }] = (await admin!.query<{ summary: string }>(`SELECT summary FROM "${schema}".sessions WHERE id = 'kid'`)).rows as [{ summary: string }]
      const { queued: _, ...earlier } = JSON.parse(summary) as Record<string, unknown>
      await admin!.query(`UPDATE "${schema}".sessions SET summary = $1 WHERE id = 'kid'`, [JSON.stringify(earlier)])
      const again = await lists(host)
      // Read for the list, the hello and the children: that session alone.
      expect(reads).toEqual(['kid', 'kid', 'kid'])
      await expectFullReadRows(reference, again)
      expect(await alone()).toEqual(withDelegation)
      expect(reads).toEqual(['kid', 'kid', 'kid', 'kid'])
    } finally {
      for (const host of hosts.splice(0)) await host.close()
      for (const store of [writer, reference, plain]) await store.close().catch(() => {})
      await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {})
    }
  })
})
