import { ChatMessagesFold } from '../ai-sdk-messages.js'
import type { HostContext } from '../context.js'
import { sessionNotFound } from '../errors.js'
import { sessionIdParam } from '../request.js'

/**
 * `GET /v1/ai-sdk/chat/:id/messages`: the chat as `UIMessage[]`, for a page that reloads (the AI
 * SDK's pattern: load the stored messages, pass them as the chat's initial `messages`). Read a
 * page of `host.pageSize` events at a time, the event loop given back between pages (as
 * `/events` reads a log), from the live log or the store — never resuming the session: on a
 * cluster host, a session another host owns is read from the shared store.
 */
export function chatMessageRoutes(host: HostContext): void {
  host.app.get('/v1/ai-sdk/chat/:id/messages', async (c) => {
    const id = sessionIdParam(c)
    const fold = new ChatMessagesFold()
    // The log as long as it was at the first page: a turn that starts meanwhile is the next load's.
    let last: number | undefined
    for (let after = -1; last === undefined || after < last; ) {
      const page = await host.sessions.page(id, after, host.pageSize)
      if (page === undefined) throw sessionNotFound(id)
      last ??= page.lastSeq
      const events = page.events.filter((e) => e.seq <= last!)
      if (events.length === 0) break
      for (const event of events) fold.add(event)
      after = events[events.length - 1]!.seq
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    return c.json(fold.result())
  })
}
