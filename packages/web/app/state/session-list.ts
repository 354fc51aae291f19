/**
 * The session list as a fold of the host stream's frames (`GET /v1/stream`): a `hello` is the
 * whole list (the first one, and again after every reconnect), a `session.status` is one
 * session's latest summary, a `session.added` a session whose summary follows.
 */
import type { HostStreamFrame, SessionListItem } from '@bosun/host/client'

export function applyHostFrame(list: readonly SessionListItem[], frame: HostStreamFrame): SessionListItem[] {
  switch (frame.event) {
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
