import { BosunError, createUserMessage } from '@bosun/core'
import { admit } from '../admission.js'
import { HAND_OVER_HEADER, RELAYED_HEADER } from '../cluster/relay.js'
import type { HostContext } from '../context.js'
import { HostError, sessionNotFound } from '../errors.js'
import { messageState, type MessageStatus } from '../log.js'
import { liveMessageStatus } from '../message-index.js'
import { checkInboxVersion, checkMessageIdParam, inboxOf, sessionIdParam, waitDurableQuery } from '../request.js'
import type { PostMessageBody } from '../schemas.js'

const notQueued = (id: string, messageId: string): HostError =>
  new HostError('queue-item-not-found', `Message "${messageId}" is not queued (claimed by a turn, removed, or never admitted): see GET /v1/sessions/${id}/messages/${messageId}.`, { id, messageId })

/**
 * The routes that name a message in their URL: its id is checked first (`400 invalid-request`).
 * Registered before the cluster's routes, which look the id up in the mailbox or relay it.
 */
const MESSAGE_ID_ROUTES = ['/v1/sessions/:id/messages/:messageId', '/v1/sessions/:id/inbox/:messageId', '/v1/sessions/:id/inbox/:messageId/promote'] as const

export function messageIdChecks(host: HostContext): void {
  for (const path of MESSAGE_ID_ROUTES) {
    host.app.use(path, async (c, next) => {
      checkMessageIdParam(c)
      await next()
    })
  }
}

/** Admission, where a message went, and queue operations by message id (checked by {@link messageIdChecks}). */
export function messageRoutes(host: HostContext): void {
  const { app, sessions } = host

  app.post('/v1/sessions/:id/messages', async (c) => {
    const id = sessionIdParam(c)
    const wait = waitDurableQuery(c)
    const input = await host.body<PostMessageBody>(c, 'postMessage')
    // A cluster's hand-over (run from the mailbox) is the message as last edited: it is not compared with its first admission.
    const handOver = c.req.header(RELAYED_HEADER) !== undefined && c.req.header(HAND_OVER_HEADER) !== undefined
    const receipt = await host.withSession(id, (live) => admit(live, input, wait, { handOver }))
    return c.json(receipt, 202)
  })

  app.get('/v1/sessions/:id/messages/:messageId', async (c) => {
    const id = sessionIdParam(c)
    const messageId = c.req.param('messageId')
    // Live here: from the session's index, the cost of the message's queue. Not loaded: the stored
    // log's fold (docs/host.md says why no store's summary or range read answers it exactly).
    const live = await sessions.readLive(id)
    let state: MessageStatus | undefined
    if (live !== undefined) state = liveMessageStatus(live, messageId)
    else {
      const read = await sessions.read(id)
      if (!read) throw sessionNotFound(id)
      state = messageState(read.events, messageId, read.header.seedLength ?? 0)
    }
    if (!state) throw new HostError('message-not-found', `Session "${id}" has no message "${messageId}".`, { id, messageId })
    return c.json(state)
  })

  app.delete('/v1/sessions/:id/inbox/:messageId', async (c) => {
    const id = sessionIdParam(c)
    const messageId = c.req.param('messageId')
    return host.withSession(id, (live) => {
      checkInboxVersion(c, live)
      try {
        live.agent.inbox.remove(messageId)
      } catch (error) {
        if (error instanceof BosunError && error.code === 'MESSAGE_NOT_PENDING') throw notQueued(id, messageId)
        throw error
      }
      return c.json({ removed: messageId, inbox: inboxOf(live.agent) })
    })
  })

  app.patch('/v1/sessions/:id/inbox/:messageId', async (c) => {
    const id = sessionIdParam(c)
    const messageId = c.req.param('messageId')
    const { content } = await host.body<{ content: PostMessageBody['content'] }>(c, 'editMessage')
    return host.withSession(id, (live) => {
      checkInboxVersion(c, live)
      const found = live.agent.inbox.find(messageId)
      if (!found) throw notQueued(id, messageId)
      try {
        // The edit keeps the id (the sender's receipt) and the source (how it was delivered).
        live.agent.inbox.replace(messageId, createUserMessage(content as never, { id: messageId, source: found.message.source }))
      } catch (error) {
        if (error instanceof BosunError && error.code === 'MESSAGE_NOT_PENDING') throw notQueued(id, messageId)
        throw error
      }
      return c.json({ edited: messageId, inbox: inboxOf(live.agent) })
    })
  })

  // Queued → steering: the message moves to the tail of next-step (core `Inbox.move`, one logged
  // move) and rides the running turn's next step. With no turn running there is no step to
  // steer: it stays queued and the answer says so (409 steer-unavailable). A claim that took it
  // first wins (404 queue-item-not-found).
  app.post('/v1/sessions/:id/inbox/:messageId/promote', async (c) => {
    const id = sessionIdParam(c)
    const messageId = c.req.param('messageId')
    await host.body(c, 'empty')
    return host.withSession(id, (live) => {
      checkInboxVersion(c, live)
      const { agent } = live
      const found = agent.inbox.find(messageId)
      if (!found) throw notQueued(id, messageId)
      if (found.target === 'next-turn') {
        if (agent.status !== 'running') {
          throw new HostError('steer-unavailable', `No turn is running in session "${id}" to steer: message "${messageId}" stays queued as a follow-up (it runs in its own turn; POST /wake runs parked input).`, { id, messageId, lane: 'next-turn' })
        }
        try {
          agent.inbox.move(messageId, 'next-step')
        } catch (error) {
          if (error instanceof BosunError && error.code === 'MESSAGE_NOT_PENDING') throw notQueued(id, messageId)
          throw error
        }
      }
      const now = agent.inbox.find(messageId)
      return c.json({ promoted: messageId, lane: 'next-step', position: now ? now.index : null, inbox: inboxOf(agent) })
    })
  })

  app.put('/v1/sessions/:id/inbox/order', async (c) => {
    const id = sessionIdParam(c)
    const { order } = await host.body<{ order: string[] }>(c, 'order')
    return host.withSession(id, (live) => {
      checkInboxVersion(c, live)
      const queue = live.agent.inbox.nextTurn
      const byId = new Map(queue.map((m) => [m.id, m]))
      const missing = order.findIndex((m) => !byId.has(m))
      if (missing !== -1) {
        const messageId = order[missing]!
        // Queued, but steering: not "not queued", which would send the client looking for a claim.
        if (live.agent.inbox.find(messageId)?.target === 'next-step') {
          const followups = queue.length === 0 ? 'none are queued' : `queued now: ${queue.map((m) => JSON.stringify(m.id)).join(', ')}`
          throw new HostError('invalid-request', `Message "${messageId}" is queued as steering (next-step), which is not ordered: "order" lists the queued follow-ups (next-turn) only, each once — ${followups}.`, { path: `/order/${missing}`, queued: queue.map((m) => m.id) })
        }
        throw notQueued(id, messageId)
      }
      if (order.length !== queue.length) {
        throw new HostError('invalid-request', `"order" must list every queued follow-up exactly once (${queue.length} queued, ${order.length} given): read GET /v1/sessions/${id} and retry.`, { path: '/order', queued: queue.map((m) => m.id) })
      }
      if (order.some((m, i) => queue[i]!.id !== m)) live.agent.inbox.splice('next-turn', 0, queue.length, order.map((m) => byId.get(m)!))
      return c.json({ inbox: inboxOf(live.agent) })
    })
  })
}
