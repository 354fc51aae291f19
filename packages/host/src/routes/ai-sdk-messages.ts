import { ChatMessagesFold, type UiMessage } from '../ai-sdk-messages.js'
import type { HostContext } from '../context.js'
import { sessionNotFound } from '../errors.js'
import { logHost } from '../host-log.js'
import { sessionIdParam } from '../request.js'

/**
 * `GET /v1/ai-sdk/chat/:id/messages`: the chat as `UIMessage[]`, for a page that reloads (the AI
 * SDK's pattern: load the stored messages, pass them as the chat's initial `messages`). Read a
 * page of `host.pageSize` events at a time, the event loop given back between pages (as
 * `/events` reads a log), from the live log or the store — never resuming the session: on a
 * cluster host, a session another host owns is read from the shared store.
 *
 * The JSON array is sent as it is read: the messages a page completes go out before the next page
 * is read, and the next page is read only when the response wants more (a pull stream), so a long
 * chat — images, tool outputs — is never held whole, and a client that stops reading stops the
 * reads. The first page is read before the answer starts: an unknown session is a 404. A read that
 * fails later ends the response unfinished (the client's JSON parse fails) and is logged.
 */
export function chatMessageRoutes(host: HostContext): void {
  host.app.get('/v1/ai-sdk/chat/:id/messages', async (c) => {
    const id = sessionIdParam(c)
    const first = await host.sessions.page(id, -1, host.pageSize)
    if (first === undefined) throw sessionNotFound(id)
    // The log as long as it was at the first page: a turn that starts meanwhile is the next load's.
    const last = first.lastSeq
    const fold = new ChatMessagesFold()
    const encoder = new TextEncoder()
    let page: { events: readonly { seq: number }[] } | undefined = first
    let after = -1
    let sent = 0
    let opened = false
    /** `[`, then each message as it completes, comma-separated; `]` once `last` is read. */
    const text = (messages: readonly UiMessage[], end: boolean): string => {
      let out = opened ? '' : '['
      opened = true
      for (const message of messages) out += (sent++ === 0 ? '' : ',') + JSON.stringify(message)
      return end ? out + ']' : out
    }
    /** The client went away: nothing more is read or sent. */
    let canceled = false
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          for (;;) {
            if (canceled) return
            page ??= await host.sessions.page(id, after, host.pageSize)
            const events = page === undefined ? [] : page.events.filter((e) => e.seq <= last)
            page = undefined
            for (const event of events) fold.add(event as Parameters<ChatMessagesFold['add']>[0])
            if (events.length > 0) after = events[events.length - 1]!.seq
            const end = events.length === 0 || after >= last
            const chunk = text(end ? fold.rest() : fold.take(), end)
            if (end) {
              controller.enqueue(encoder.encode(chunk))
              controller.close()
              return
            }
            // Given back between pages; a page that completed no message reads the next at once.
            await new Promise<void>((resolve) => setImmediate(resolve))
            if (chunk !== '') {
              controller.enqueue(encoder.encode(chunk))
              return
            }
          }
        } catch (error) {
          if (canceled) return
          logHost(`[bosun host] loading the chat messages of session ${id} failed after ${sent} messages; the response ends unfinished:`, error)
          controller.error(error)
        }
      },
      cancel: () => {
        canceled = true
      },
    }, { highWaterMark: 0 })
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } })
  })
}
