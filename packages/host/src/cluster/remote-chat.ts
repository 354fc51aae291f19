import type { SessionEvent, SessionHeader } from '@bosun/core'
import type { Context } from 'hono'
import { openTurn, uiTurnStream, type TurnStreamOptions } from '../ai-sdk.js'
import { chatMessage, UI_HEADERS, type ChatInput } from '../ai-sdk-chat.js'
import type { HostContext } from '../context.js'
import { sessionNotFound } from '../errors.js'
import { InboxFold } from '../log.js'
import { LogTail, tailStore } from '../log-tail.js'
import { checkSessionId } from '../sessions.js'
import type { Cluster } from './cluster.js'
import type { ClusterStore } from './store.js'
import { answer, RELAYED_HEADER } from './relay.js'
import { foldSliced } from '../stream.js'
import { SessionWake } from './session-wake.js'

/**
 * The AI SDK chat routes of a host on a cluster store, for a session another host owns (SPEC
 * §13: any host admits, any host streams). The chat POST admits its message through the
 * mailbox like `POST …/messages` and streams the turn that claims it — the same UI message parts
 * the owner sends — translated from the store's events table; the resume route streams the open
 * turn the same way. A session this host runs (or can open) goes to the host's own routes.
 */
export function remoteChatRoutes(host: HostContext, cluster: Cluster): void {
  const { app } = host
  const { store } = cluster

  /** A turn's UI message stream read from the events table, woken by the store, ended when the host closes. */
  const turnStream = (id: string, log: StoredLog, options: Pick<TurnStreamOptions, 'messageId' | 'turn' | 'after'>): Response => {
    // Its session removed (on any host): the turn's stream ends, as when the host closes.
    const unwatch = host.feed.watch((changed, removed) => {
      if (changed === id && removed === true) end()
    })
    const wake = new SessionWake(cluster.watcher, id, () => {
      unwatch()
      cluster.streams.delete(end)
    })
    const end = (): void => wake.end()
    cluster.streams.add(end)
    const stream = uiTurnStream({
      foldTo: (after) => log.foldTo(after),
      since: (seq) => {
        wake.reading()
        return store.readEvents(id, seq + 1, host.streamBatch)
      },
      turnStart: (turn, before) => turnStartIn(store, id, turn, before, host.pageSize),
      wait: (ms) => wake.wait(ms),
      ended: () => wake.ended,
      end,
    }, { ...options, keepAliveMs: host.keepAliveMs })
    return new Response(stream, { status: 200, headers: UI_HEADERS })
  }

  /**
   * The session's log as a chat stream starts on it: where the store tells the log's length and
   * reads ranges of it (PostgreSQL), its end read back only as far as the stream needs (the open
   * turn, the inbox at the cursor: `LogTail`); else the whole log, read once. Undefined: no such session.
   */
  const storedLog = async (id: string): Promise<StoredLog | undefined> => {
    const tailed = tailStore(store)
    if (tailed !== undefined) {
      const tail = await LogTail.open(tailed, id, host.pageSize)
      return tail === undefined ? undefined : { length: tail.length, openTurn: () => tail.openTurn(), foldTo: async (after) => (await tail.inboxAt(after)) ?? foldWhole(id, after) }
    }
    const read = await store.read(id)
    return read === undefined ? undefined : wholeLog(read)
  }

  /** The inbox fold through `after` of the whole log, read now (a log only grows: its first events are those the tail saw). */
  const foldWhole = async (id: string, after: number): Promise<InboxFold> => {
    const read = await store.read(id)
    if (read === undefined) throw sessionNotFound(id)
    return wholeLog(read).foldTo(after)
  }

  app.post('/v1/ai-sdk/chat', async (c, next) => {
    if (c.req.header(RELAYED_HEADER) !== undefined) return next()
    // The id decides who answers, so the body is read from a copy: the host's own route reads the original.
    const peeked = await host.body<ChatInput>(copyOf(c), 'aiSdkChat').catch(() => undefined)
    // A message the route refuses is refused there, before anything is opened or created.
    const message = peeked === undefined || !validId(peeked.id) ? undefined : messageOf(peeked)
    // The chat opens or creates its session: a new id another host created first is relayed to it.
    // The host's own route would open it the same way: a refusal (its plugin setups') is answered from here, not set up again.
    if (peeked === undefined || message === undefined || !(await cluster.ownedElsewhere(peeked.id, { create: 'if-missing', opens: true }))) return next()
    const { id } = peeked
    // Where the log ends, read before the message is posted: its admission (and the turn that claims it) comes after.
    const log = await storedLog(id)
    if (!log) throw sessionNotFound(id)
    const path = `/v1/sessions/${encodeURIComponent(id)}/messages?wait=durable`
    const { outcome } = await cluster.relay(id, message.clientMessageId, 'message', { method: 'POST', path, body: message })
    if (outcome !== undefined && outcome.status >= 400) return answer(c, outcome)
    // A repeated message id: the owner's receipt gives the first admission's seq, before this read's end.
    const seq = (outcome?.body as { seq?: unknown } | undefined)?.seq
    const after = typeof seq === 'number' ? Math.min(log.length - 1, seq - 1) : log.length - 1
    return turnStream(id, log, { messageId: message.clientMessageId, after })
  })

  app.get('/v1/ai-sdk/chat/:id/stream', async (c, next) => {
    const id = c.req.param('id')
    // No such session: the host's own route answers 204; another failure to open it is its answer too.
    if (!validId(id) || !(await cluster.ownedElsewhere(id, { opens: true }))) return next()
    // The last turn ended: nothing to resume, known without reading the log. Otherwise (`running`,
    // a status the store does not know, no such session) the log is read: the stream folds it.
    const status = await store.sessionStatus?.(id)
    if (status === 'idle') return new Response(null, { status: 204 })
    const log = await storedLog(id)
    const turn = await log?.openTurn()
    if (log === undefined || turn === undefined) return new Response(null, { status: 204 })
    return turnStream(id, log, { turn: turn.turn, after: turn.seq - 1 })
  })
}

/** A session's log as a chat stream starts on it: where it ends, and the inbox fold at a seq before that. */
interface StoredLog {
  /** Events in the log when it was read. */
  length: number
  /** The turn left open at the end, if any. */
  openTurn(): Promise<{ turn: number; seq: number } | undefined>
  /** The inbox fold through seq `after`. */
  foldTo(after: number): Promise<InboxFold>
}

/** A log read whole: folded from seq 0 a slice per macrotask, like a live log. */
function wholeLog(read: { header: SessionHeader; events: readonly SessionEvent[] }): StoredLog {
  const { events } = read
  const seedLength = read.header.seedLength ?? 0
  return { length: events.length, openTurn: async () => openTurn(events), foldTo: (after) => foldSliced({ eventAt: (seq) => events[seq] }, new InboxFold(seedLength), 0, after) }
}

/**
 * The seq of `turn`'s turn/start at or before `before`, read back from the events table a page at
 * a time, only through the turn running at `before`: turns do not overlap, so the first
 * turn/start back from there is that turn's — `turn`'s, or undefined (the stream then streams
 * the turn from its claim on). A steer's stream asks it (`TurnLog.turnStart`) to replay the turn
 * that claimed the steer from its start, as the owner's stream of it does.
 */
async function turnStartIn(store: ClusterStore, id: string, turn: number, before: number, page: number): Promise<number | undefined> {
  for (let end = before + 1; end > 0; end -= page) {
    const events = await store.readEvents(id, Math.max(0, end - page), Math.min(page, end))
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!
      if (event.seq > before || event.type !== 'turn/start') continue
      return (event.data as { turn: number }).turn === turn ? event.seq : undefined
    }
  }
  return undefined
}

/** The chat's message, or undefined when the host's own route refuses it (it answers why). */
function messageOf(input: ChatInput): ReturnType<typeof chatMessage> | undefined {
  try {
    return chatMessage(input)
  } catch {
    return undefined
  }
}

function validId(id: string): boolean {
  try {
    checkSessionId(id)
    return true
  } catch {
    return false // the host's own route answers the malformed id
  }
}

/** What `host.body` reads, over a copy of the request's body (the original stays unread). */
function copyOf(c: Context): Context {
  const raw = c.req.raw.clone()
  return { req: { raw, header: (name: string) => c.req.header(name) } } as unknown as Context
}
