import { randomUUID } from 'node:crypto'
import type { JsonValue } from '@bosun/core'
import type { HostContext } from '../context.js'
import { HostError, sessionNotFound } from '../errors.js'
import { checkCursor, streamQuery, waitDurableQuery } from '../request.js'
import { SSE_HEADERS } from '../routes/sessions.js'
import { checkSessionId } from '../sessions.js'
import type { Cluster } from './cluster.js'
import { answer, outcomeOf, RELAYABLE, RELAYED_HEADER, sessionOf, type RelayedRequest } from './relay.js'
import { remoteChatRoutes } from './remote-chat.js'
import { remoteStream } from './remote-stream.js'

/**
 * The routes of a host on a cluster store, registered before the others: a change to a session
 * another host owns is posted to the mailbox and answered with the owner's answer (or `pending`
 * after `relayWaitMs`); a stream of such a session is served from the store's events table;
 * where a message or a relayed request went is looked up in the mailbox.
 */
export function clusterRoutes(host: HostContext, cluster: Cluster): void {
  const { app } = host
  const { store } = cluster

  app.use('/v1/sessions/*', async (c, next) => {
    const path = new URL(c.req.url).pathname
    // Matched on the path the router matched (percent-decoded: `/v1/%73essions/…` is a session
    // route to it), or an encoded spelling would skip the relay and answer session-locked. The
    // raw path is what is relayed: the owner's router decodes it the same way.
    const routed = c.req.path
    const route = RELAYABLE.find((r) => r.method === c.req.method && r.pattern.test(routed))
    const id = route && c.req.header(RELAYED_HEADER) === undefined ? sessionOf(routed.match(route.pattern)) : undefined
    if (!route || id === undefined) return next()
    // The request is checked as the route checks it before it opens the session (a bad `?wait` or
    // body is refused here as on the owner), and then the open that finds who owns the session is
    // the route's own: a config its setups refuse is answered from that one open (opens: true), not
    // set up again by the route. The route reads the body again from a copy.
    if (route.message) waitDurableQuery(c)
    const copy = route.schema === undefined ? undefined : c.req.raw.clone()
    const body = route.schema === undefined ? undefined : await host.body<JsonValue>(c, route.schema)
    if (!(await cluster.ownedElsewhere(id, { opens: true }))) {
      if (copy !== undefined) c.req.raw = copy
      return next()
    }
    const query = new URL(c.req.url).search
    const relayed: RelayedRequest = {
      method: c.req.method,
      // A relayed message is answered once its splice is committed: that commit marks it delivered.
      path: route.message ? `${path}?wait=durable` : `${path}${query}`,
      ...(c.req.header('if-match') === undefined ? {} : { ifMatch: c.req.header('if-match')! }),
      ...(body === undefined ? {} : { body }),
    }
    // A request's key starts with "_", which no message id may (they start with a letter or digit):
    // a client cannot send a message under a request's key and be answered that request's answer.
    const messageId = route.message ? (body as { clientMessageId: string }).clientMessageId : `_request:${randomUUID()}`
    const { created, outcome: done } = await cluster.relay(id, messageId, route.message ? 'message' : 'request', relayed)
    if (done !== undefined) {
      // A repeated clientMessageId is answered with the first admission's receipt, marked duplicate.
      if (route.message && !created && done.status === 202 && typeof done.body === 'object' && done.body !== null) return answer(c, { status: 202, body: { ...done.body, duplicate: true } })
      return answer(c, done)
    }
    if (route.message) {
      const delivery = (body as { delivery?: string }).delivery ?? 'followup'
      return c.json({ accepted: true, messageId, duplicate: !created, delivery, status: 'pending', durable: true, lookup: `/v1/sessions/${encodeURIComponent(id)}/messages/${encodeURIComponent(messageId)}` }, 202)
    }
    return c.json({ accepted: true, requestId: messageId, status: 'pending', lookup: `/v1/sessions/${encodeURIComponent(id)}/requests/${encodeURIComponent(messageId)}` }, 202)
  })

  // Where a message went: still in the mailbox (pending), refused by the owner, or (next) in the log.
  app.get('/v1/sessions/:id/messages/:messageId', async (c, next) => {
    const id = c.req.param('id')
    const messageId = c.req.param('messageId')
    checkSessionId(id)
    const entry = await store.mailbox.get(id, messageId).catch(() => undefined)
    if (entry?.kind === 'message' && entry.deliveredSeq === null) {
      if (entry.doneAt === null) return c.json({ messageId, state: 'pending' })
      const outcome = outcomeOf(entry)
      if (outcome !== undefined && outcome.status >= 400) return answer(c, outcome)
    }
    return next()
  })

  // The answer to a relayed queue operation, cancel or wake that was `pending`.
  app.get('/v1/sessions/:id/requests/:requestId', async (c) => {
    const id = c.req.param('id')
    const requestId = c.req.param('requestId')
    checkSessionId(id)
    const entry = await store.mailbox.get(id, requestId)
    if (entry === undefined || entry.kind !== 'request') throw new HostError('message-not-found', `Session "${id}" has no relayed request "${requestId}".`, { id, requestId })
    const outcome = outcomeOf(entry)
    return outcome === undefined ? c.json({ requestId, status: 'pending' }) : answer(c, outcome)
  })

  app.get('/v1/sessions/:id/stream', async (c, next) => {
    const id = c.req.param('id')
    checkSessionId(id)
    if (!(await cluster.ownedElsewhere(id))) return next()
    const read = await store.read(id)
    if (!read) throw sessionNotFound(id)
    const lastSeq = read.events.length - 1
    // The same cursor as on the owner (request.ts): an EventSource's reconnect to `?from=tail` resumes at its Last-Event-ID.
    const { cursor, chunks } = streamQuery(c)
    const after = cursor === 'tail' ? lastSeq : cursor
    checkCursor(id, after, lastSeq)
    const { stream, end } = remoteStream(store, cluster.watcher, id, {
      events: read.events,
      seedLength: read.header.seedLength ?? 0,
      after,
      keepAliveMs: host.keepAliveMs,
      batch: host.streamBatch,
      chunks,
      watch: (listener) => host.feed.watch(listener),
      onEnd: () => cluster.streams.delete(end),
    })
    cluster.streams.add(end)
    return new Response(stream, { status: 200, headers: SSE_HEADERS })
  })

  remoteChatRoutes(host, cluster)
}
