import { expect } from 'vitest'
import { foldInbox } from '../src/log.js'
import type { Frame } from './helpers.js'

/**
 * Checks that each `session.inbox` frame of a session stream carries the queues the log's splices
 * leave at the event frame just before it (the inbox frame follows the splice it reports), and
 * returns how many it checked. `events`: the session's log (a live one, or read from the host).
 */
export function checkInboxFrames(frames: readonly Frame[], events: readonly unknown[]): number {
  let checked = 0
  for (const [index, frame] of frames.entries()) {
    if (frame.event !== 'session.inbox') continue
    const seq = Number(frames[index - 1]!.id)
    expect(frame.data).toEqual(foldInbox(events.slice(0, seq + 1) as never))
    checked++
  }
  return checked
}
