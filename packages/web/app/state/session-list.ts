/**
 * The session list as a fold of the host stream's frames (`GET /v1/stream`): a `hello` is the
 * whole list (the first one, and again after every reconnect), a `session.status` is one
 * session's latest summary, a `session.added` a session whose summary follows, a `session.removed`
 * a session removed from the store (one frame per id: a subagent's children go with their parent).
 */
import type { HostStreamFrame, SessionListItem } from '@bosun/host/client'

export function applyHostFrame(list: readonly SessionListItem[], frame: HostStreamFrame): SessionListItem[] {
  switch (frame.event) {
    case 'session.removed':
      return withoutSessions(list, [frame.data.id])
    case 'hello':
      return frame.data.sessions
    case 'session.added':
      // Drawn at once; its summary (status, counts, times) arrives in the next frame.
      return list.some((item) => item.id === frame.data.id) ? [...list] : [...list, { id: frame.data.id, loaded: true, status: 'idle', lastSeq: -1, lastEventAt: null, queue: null }]
    case 'session.status':
      return upsert(list, frame.data)
    default:
      return [...list]
  }
}

/** `item` in place of the one with its id (keeping fields the frame leaves out), or appended. */
export function upsert(list: readonly SessionListItem[], item: SessionListItem): SessionListItem[] {
  const index = list.findIndex((existing) => existing.id === item.id)
  if (index === -1) return [...list, item]
  const next = [...list]
  next[index] = { ...list[index]!, ...item }
  return next
}

/** The list without the sessions `ids` names (a removal this page asked for, before or without its frames). */
export function withoutSessions(list: readonly SessionListItem[], ids: readonly string[]): SessionListItem[] {
  return list.filter((item) => !ids.includes(item.id))
}

/**
 * The subagent children of `id` the list holds, and theirs, breadth-first: the sessions the host
 * removes with it (forks are copies: they stay). For the confirm to name them.
 */
export function childrenOf(list: readonly SessionListItem[], id: string): string[] {
  const order = [id]
  for (let i = 0; i < order.length; i++) {
    for (const item of list) if (item.parentSessionId === order[i] && !order.includes(item.id)) order.push(item.id)
  }
  return order.slice(1)
}
