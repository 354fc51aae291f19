import { BosunError, forkSeed, removeSession, type Store } from '@bosun/core'
import type { HostContext } from '../context.js'
import { HostError, hostErrorOf, sessionNotFound } from '../errors.js'
import { foldInbox, type InboxSnapshot } from '../log.js'
import { LogTail, tailStore } from '../log-tail.js'
import { openApiDocument } from '../openapi.js'
import { checkCursor, inboxOf, inboxVersionOf, intQuery, sessionIdParam } from '../request.js'
import { checkSessionId, type SessionManager } from '../sessions.js'
import { removalPlan, removalRefused, removedInPart, removeUnsupported } from '../session-remove.js'
import { childSummaries } from '../summary.js'

export const PROTOCOL = 'bosun-host/1'

export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' }

/** The host's description, the session list (and its stream), and whole-session routes. */
export function sessionRoutes(host: HostContext): void {
  const { app, sessions, feed } = host
  // The ids of forks being made: a second fork (or a create) of one of them is told it is taken,
  // not the store's lock on the file the first is writing.
  const forking = new Set<string>()

  app.get('/v1/host', (c) => c.json({
    protocol: PROTOCOL,
    version: host.version,
    capabilities: ['openapi', 'sessions', 'events', 'stream', 'messages', 'message-status', 'inbox-edit', 'inbox-remove', 'inbox-promote', 'inbox-order', 'cancel', 'wake', 'fork', 'children', 'host-stream', 'login', 'tickets', 'ai-sdk', ...(host.store.remove === undefined ? [] : ['remove'])],
    auth: host.token === undefined ? 'none' : 'bearer',
  }))

  const openApi = openApiDocument(host.version)
  app.get('/v1/openapi.json', (c) => c.json(openApi))

  app.get('/v1/sessions', async (c) => c.json({ sessions: await host.listSessions() }))

  app.get('/v1/stream', () => new Response(feed.stream(async () => ({ sessions: await host.listSessions() }), host.keepAliveMs), { status: 200, headers: SSE_HEADERS }))

  app.post('/v1/sessions', async (c) => {
    const { id = crypto.randomUUID() } = await host.body<{ id?: string }>(c, 'createSession')
    checkSessionId(id)
    if (forking.has(id)) throw sessionExists(id, ', or omit it for a new one')
    const live = await sessions.use(id, { create: true })
    return c.json({ id, status: live.agent.status, lastSeq: live.agent.session.length - 1 }, 201)
  })

  app.get('/v1/sessions/:id', async (c) => {
    const id = sessionIdParam(c)
    const live = await sessions.readLive(id)
    if (live) {
      const { agent } = live
      c.header('etag', `"${live.inboxSeq}"`)
      return c.json({ id, loaded: true, status: agent.status, turn: agent.turn, lastSeq: agent.session.length - 1, inboxVersion: live.inboxSeq, inbox: inboxOf(agent) })
    }
    // Not loaded: from the log's end where the store can read it alone (log-tail.ts), else the whole log.
    const cold = await coldState(host.store, id, host.pageSize) ?? (await wholeState(sessions, id))
    c.header('etag', `"${cold.inboxVersion}"`)
    // On a cluster, a session another host runs is `running` mid-turn, as in the list.
    const [row] = await host.liveStatus([{ id, loaded: false, status: 'idle' }])
    return c.json({ ...row!, ...cold })
  })

  // A subagent's children (`delegation.parentSessionId` in their headers), read, never resumed.
  app.get('/v1/sessions/:id/children', async (c) => {
    const id = sessionIdParam(c)
    if (!(await sessions.exists(id))) throw sessionNotFound(id)
    return c.json({ children: await host.liveStatus(await childSummaries(sessions, host.store, id, (listener) => host.feed.watch(listener))) })
  })

  app.get('/v1/sessions/:id/events', async (c) => {
    const id = sessionIdParam(c)
    const after = intQuery(c, 'after', -1, -1, Number.MAX_SAFE_INTEGER)
    const limit = intQuery(c, 'limit', 100, 1, host.pageSize)
    // Only the page where the store can read one (sessions.ts): not the whole log for 100 events.
    const page = await sessions.page(id, after, limit)
    if (!page) throw sessionNotFound(id)
    const { lastSeq, events } = page
    checkCursor(id, after, lastSeq)
    const next = events.length === 0 ? after : events[events.length - 1]!.seq
    return c.json({ events, lastSeq, next: next < lastSeq ? next : null })
  })

  app.post('/v1/sessions/:id/fork', async (c) => {
    const id = sessionIdParam(c)
    const input = await host.body<{ id?: string; afterTurn?: number }>(c, 'fork')
    const childId = input.id ?? crypto.randomUUID()
    checkSessionId(childId)
    if (!(await sessions.exists(id))) throw sessionNotFound(id)
    // Taken at once, with no await between the check and the add: two forks checking together would both pass.
    if (forking.has(childId)) throw sessionExists(childId)
    forking.add(childId)
    let forked
    try {
      // Open here: the store would answer session-locked for it.
      if (await sessions.peek(childId)) throw sessionExists(childId)
      // A turn that just ended may still be in the live session's write-behind: the fork reads the store.
      const live = await sessions.peek(id)
      if (live) await live.agent.session.flush()
      let seeded
      try {
        seeded = await forkSeed(host.store, id, { id: childId, ...(input.afterTurn === undefined ? {} : { afterTurn: input.afterTurn }) })
      } catch (error) {
        if (error instanceof BosunError && error.code === 'INVALID_ARGUMENT') throw new HostError('invalid-request', error.message, { path: '/afterTurn' })
        // The parent's log locked or unreadable: see hostErrorOf.
        throw hostErrorOf(error, id) ?? error
      }
      try {
        forked = await host.store.create(seeded.header, seeded.seed)
      } catch (error) {
        // The child's: its id taken (409 session-exists), or held by a writer elsewhere.
        throw hostErrorOf(error, childId) ?? error
      }
      // Closed before the id leaves `forking`: a second fork of it meanwhile would meet the
      // child's writer (its lock) instead of the id taken.
      await forked.writer.close()
    } finally {
      forking.delete(childId)
    }
    feed.added(childId)
    return c.json({ id: childId, parent: id, seedLength: forked.header.seedLength ?? 0 }, 201)
  })

  // Removes the session with its subagent children (session-remove.ts; docs/host.md "Removing a session").
  app.delete('/v1/sessions/:id', async (c) => {
    const id = sessionIdParam(c)
    if (host.store.remove === undefined) throw removeUnsupported(host.store)
    const plan = await removalPlan(host.store, id)
    if (plan === undefined) throw sessionNotFound(id)
    let removed: string[]
    try {
      removed = await sessions.remove(id, plan.descendants, () => removeSession(host.store, id))
    } catch (error) {
      for (const gone of removedInPart(error)) feed.removed(gone)
      throw removalRefused(error, id)
    }
    if (removed.length === 0) throw sessionNotFound(id)
    for (const gone of removed) feed.removed(gone)
    return c.json({ removed })
  })

  app.post('/v1/sessions/:id/cancel', async (c) => {
    const id = sessionIdParam(c)
    const { keepInbox = false } = await host.body<{ keepInbox?: boolean }>(c, 'cancel')
    return host.withSession(id, (live) => {
      live.agent.cancel({ keepInbox })
      return c.json({ canceled: true, keepInbox, inbox: inboxOf(live.agent) })
    })
  })

  app.post('/v1/sessions/:id/wake', async (c) => {
    const id = sessionIdParam(c)
    await host.body(c, 'empty')
    return host.withSession(id, (live) => {
      live.agent.wake()
      return c.json({ status: live.agent.status, inbox: inboxOf(live.agent) })
    })
  })
}

/** A cold session's end as `GET /v1/sessions/:id` gives it. */
interface ColdState { lastSeq: number; inboxVersion: number; inbox: InboxSnapshot }

/**
 * A cold session's end read back from its last events (`LogTail`): undefined when the store
 * cannot read a log's end alone or the tail cannot give the inbox (the caller reads the whole
 * log); `session-not-found` for no such session.
 */
async function coldState(store: Store, id: string, page: number): Promise<ColdState | undefined> {
  const tailed = tailStore(store)
  if (tailed === undefined) return undefined
  const tail = await LogTail.open(tailed, id, page)
  if (tail === undefined) throw sessionNotFound(id)
  const fold = await tail.inboxAt(tail.length - 1)
  return fold === undefined ? undefined : { lastSeq: tail.length - 1, inboxVersion: await tail.lastSplice(), inbox: fold.snapshot() }
}

/** A cold session's end from its whole log. */
async function wholeState(sessions: SessionManager, id: string): Promise<ColdState> {
  const read = await sessions.read(id)
  if (!read) throw sessionNotFound(id)
  const seedLength = read.header.seedLength ?? 0
  return { lastSeq: read.events.length - 1, inboxVersion: inboxVersionOf(read.events, seedLength), inbox: foldInbox(read.events, seedLength) }
}

/** `409 session-exists` for an id a client asked to make. */
function sessionExists(id: string, hint = ''): HostError {
  return new HostError('session-exists', `Session "${id}" already exists: choose another id${hint}.`, { id })
}
