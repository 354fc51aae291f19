import { admit, type AdmissionReceipt } from '../admission.js'
import { inboxMark, openTurn, uiMessageStream } from '../ai-sdk.js'
import { chatMessage, UI_HEADERS, type ChatInput } from '../ai-sdk-chat.js'
import { needsRecovery, openColdStream } from '../cold-stream.js'
import type { HostContext } from '../context.js'
import { HostError } from '../errors.js'
import { checkCursor, sessionIdParam, streamQuery } from '../request.js'
import { checkSessionId } from '../sessions.js'
import { sessionStream } from '../stream.js'
import { SSE_HEADERS } from './sessions.js'

/** The session's SSE stream and the AI SDK chat routes (a UI message stream per turn). */
export function streamRoutes(host: HostContext): void {
  const { app, sessions } = host

  // AI SDK `useChat`: the chat id is the session id; the last user message is admitted (a
  // follow-up, or what `bosun.delivery` says) with its id as the clientMessageId, and the turn
  // that claims it streams as a UI message stream (v1).
  app.post('/v1/ai-sdk/chat', async (c) => {
    const input = await host.body<ChatInput>(c, 'aiSdkChat')
    checkSessionId(input.id)
    const message = chatMessage(input)
    const live = await sessions.use(input.id, { create: 'if-missing' })
    const release = sessions.hold(live)
    // The queues just before the admission: the turn stream folds on from here, not from seq 0.
    const mark = inboxMark(live)
    let receipt: AdmissionReceipt
    try {
      receipt = await admit(live, message, false)
    } catch (error) {
      release()
      throw error
    }
    return new Response(uiMessageStream(live, { messageId: receipt.messageId, after: receipt.seq - 1, mark, keepAliveMs: host.keepAliveMs, onEnd: release }), { status: 200, headers: UI_HEADERS })
  })

  app.get('/v1/ai-sdk/chat/:id/stream', async (c) => {
    const id = sessionIdParam(c)
    if (!(await sessions.exists(id))) return new Response(null, { status: 204 })
    // useChat asks this on every page load: a session no agent has open is not resumed for it
    // (resuming one a shutdown left owing its queue would run that queue), unless a crash left its
    // last turn open — then recovery closes that turn and the turn it wakes is the one to stream.
    if (!(await resumesForChat(host, id))) return new Response(null, { status: 204 })
    // Removed meanwhile (DELETE /v1/sessions/:id): no such session, as for an unknown id.
    const live = await sessions.use(id).catch((error: unknown) => {
      if (error instanceof HostError && error.code === 'session-not-found') return undefined
      throw error
    })
    if (live === undefined) return new Response(null, { status: 204 })
    const turn = openTurn(live.agent.session.events)
    if (!turn) return new Response(null, { status: 204 })
    const release = sessions.hold(live)
    return new Response(uiMessageStream(live, { turn: turn.turn, after: turn.seq - 1, keepAliveMs: host.keepAliveMs, onEnd: release }), { status: 200, headers: UI_HEADERS })
  })

  app.get('/v1/sessions/:id/stream', async (c) => {
    const id = sessionIdParam(c)
    const { cursor, chunks } = streamQuery(c)
    const common = { keepAliveMs: host.keepAliveMs, batch: host.streamBatch, chunks }
    // A session no agent has open streams from its stored log, without being resumed (cold-stream.ts).
    const cold = await openColdStream(host.store, sessions, host.feed, id, cursor, common)
    if (cold !== undefined) return new Response(cold, { status: 200, headers: SSE_HEADERS })
    const live = await sessions.use(id)
    const after = cursor === 'tail' ? live.agent.session.length - 1 : cursor
    checkCursor(id, after, live.agent.session.length - 1)
    const release = sessions.hold(live)
    const stream = sessionStream(live, { ...common, after, onEnd: release })
    return new Response(stream, { status: 200, headers: SSE_HEADERS })
  })
}

/**
 * Whether the AI SDK resume route opens session `id`: it is live here, its store cannot read it
 * without opening it, or a crash left its stored log's last turn open. Otherwise it has no open
 * turn to stream, and the route answers 204 from the stored log.
 */
async function resumesForChat(host: HostContext, id: string): Promise<boolean> {
  if (host.store.read === undefined || (await host.sessions.peek(id)) !== undefined) return true
  const stored = await host.sessions.read(id)
  if (stored === undefined) return false // gone meanwhile: nothing to resume, as for an unknown id
  return stored.live !== undefined || needsRecovery(stored.events, stored.header.seedLength ?? 0)
}
