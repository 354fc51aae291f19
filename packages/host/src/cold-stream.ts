import type { SessionEvent, SessionHeader, Store } from '@bosun/core'
import type { HostFeed } from './feed.js'
import { InboxFold } from './log.js'
import { liveEnded, type LiveSession } from './live-session.js'
import type { SessionManager } from './sessions.js'
import { sseFrame as frame, sseStream } from './sse.js'
import { liveLog, noteFinishedStep, readFrames, removedFrame, settle, storedHello, type StreamLog, type StreamOptions } from './stream.js'
import { StatusIndex } from './status-fold.js'
import { subscribe, type Subscription } from './subscription.js'

/**
 * A cold session's stream: a session no agent has open is streamed from its stored log, without
 * resuming it — resuming replays the whole log into an agent before the first byte (seconds for
 * a 40,000-event session on a busy machine) and then keeps the agent in memory for as long as
 * someone watches. If the session goes live on this host while the stream is open (a message
 * resumes it), the stream hands over to the live log at its cursor: the live log starts with the
 * same stored events, so nothing is sent twice or skipped. Frames are those of `sessionStream`.
 *
 * The first frame waits for the whole stored log (`Store.read`): the `hello` comes first and
 * describes the end of the log (last seq, status, queues folded from every splice, the
 * fingerprint up to the cursor), which no store gives before it has read all of it (docs/host.md,
 * "A cold session's first frame", with a measurement). The pass over the log it read is made a
 * slice per macrotask (`storedHello`, stream.ts).
 */

/** Checked again this often while cold, in case the session went live without a change signal. */
const LIVE_CHECK_MS = 1000

export interface ColdStreamOptions extends Omit<StreamOptions, 'onEnd'> {
  id: string
  stored: { header: SessionHeader; events: readonly SessionEvent[] }
}

/**
 * True when a crash left the stored log's last turn open: opening it runs recovery (the turn is
 * closed `interrupted`, its claimed input re-queued and the session woken, SPEC §8 and §10), so
 * such a session is resumed rather than streamed cold.
 */
export function needsRecovery(events: readonly SessionEvent[], seedLength: number): boolean {
  for (let i = events.length - 1; i >= seedLength; i--) {
    const type = events[i]!.type
    if (type === 'turn/end') return false
    if (type === 'turn/start') return true
  }
  return false
}

export function coldSessionStream(sessions: SessionManager, feed: HostFeed, options: ColdStreamOptions): ReadableStream<Uint8Array> {
  const { id, stored } = options
  const seedLength = stored.header.seedLength ?? 0
  let cursor = options.after
  // Both made in `first`, a slice at a time: `read` runs only after it.
  const fold = new InboxFold(seedLength)
  const finishedSteps = new Set<string>()
  // The status at the cursor, read back from it (the events since the last turn boundary).
  // Noted by the hello's pass over the stored log, then by the reads, whichever log they read.
  const statuses = new StatusIndex(seedLength)
  let log: StreamLog = { events: stored.events, finishedSteps }
  /** The stored events once they grew ({@link readOn}): the store's array is not this stream's to grow, so it is copied once, at the first growth. */
  let grown: SessionEvent[] | undefined
  let live: LiveSession | undefined
  let subscription: Subscription | undefined
  let ended = false
  let wake: (() => void) | undefined
  /** The feed said the session changed since the stored log was last read: it may have gone live and been retired again. */
  let changedSince = false
  /** The session was removed while cold here (on this host, or another of a cluster): the stream ends with `session.removed`. */
  let removed = false
  // A message to the session resumes it and logs a splice: the feed says "changed" at once.
  const unwatch = feed.watch((changed, gone) => {
    if (changed === id) changedSince = true
    if (changed === id && gone === true && live === undefined) removed = true
    if (changed === null || changed === id) wake?.()
  })

  /** Switches to the live log once the session is live here, held (not retired) while streamed. */
  const goLive = async (): Promise<void> => {
    const found = await sessions.peek(id)
    if (found === undefined || found.closed === true || ended || live !== undefined) return
    live = found
    log = liveLog(found)
    subscription = subscribe(found, sessions.hold(found))
  }

  /**
   * The session went live and was retired again while this stream was not waiting (a slow client
   * mid-replay), or it runs on another host of a cluster: the stored log grew. Only what is new is
   * read — from the end of the events this stream has (`SessionManager.readFrom`, a range read
   * where the store has one) — not the whole log again on every change signal, which cost a
   * read of the whole history per turn on a cluster. True when it grew.
   */
  const readOn = async (): Promise<boolean> => {
    if (!changedSince) return false
    changedSince = false
    const read = await sessions.readFrom(id, log.events.length)
    // Live again meanwhile: the next goLive hands over to it.
    if (read === undefined || read.live !== undefined || live !== undefined || ended) return read?.live !== undefined
    if (read.events.length === 0) return false
    grown ??= [...stored.events]
    for (const event of read.events) {
      noteFinishedStep(finishedSteps, event)
      grown.push(event)
    }
    log = { events: grown, finishedSteps }
    return true
  }

  /** Waits, while cold, for the session to go live, the stored log to grow, the stream to end, or `ms`; true when it timed out. */
  const waitCold = async (ms: number): Promise<boolean> => {
    const deadline = Date.now() + ms
    for (;;) {
      await goLive()
      if (live !== undefined || ended || removed || feed.closed) return false
      if (await readOn()) return false
      const left = deadline - Date.now()
      if (left <= 0) return true
      let timer: ReturnType<typeof setTimeout> | undefined
      await new Promise<void>((resolve) => {
        wake = resolve
        timer = setTimeout(resolve, Math.min(left, LIVE_CHECK_MS))
      })
      clearTimeout(timer)
      wake = undefined
    }
  }

  return sseStream({
    first: async () => `retry: 1000\n${frame('hello', await storedHello(stored.events, seedLength, cursor, fold, finishedSteps, statuses))}`,
    read: () => {
      const next = readFrames(log, fold, cursor, options, statuses)
      cursor = next.cursor
      return next.out
    },
    wait: (ms) => (subscription === undefined ? waitCold(ms) : subscription.wait(ms)),
    ended: () => ended || removed || feed.closed || (live !== undefined && liveEnded(live)) || subscription?.ended === true,
    end: () => {
      if (ended) return
      ended = true
      unwatch()
      wake?.()
      subscription?.end()
    },
    settle,
    final: () => removedFrame(id, removed || live?.removal === 'removed'),
  }, options.keepAliveMs)
}

/**
 * The stream of session `id` from its stored log, or undefined when it must be served live: the
 * store cannot read a session without opening it (opening repairs a crash's open turn without the
 * agent that would wake its re-queued work), the session is live already, unknown (the live path
 * says `session-not-found`), left mid-turn by a crash, or the client's cursor is past the stored
 * log (a retiring agent may still be writing its tail: the live path waits for it and answers
 * `replay-unavailable` only if the cursor is past the real log).
 */
export async function openColdStream(store: Store, sessions: SessionManager, feed: HostFeed, id: string, cursor: number | 'tail', options: Omit<ColdStreamOptions, 'id' | 'stored' | 'after'>): Promise<ReadableStream<Uint8Array> | undefined> {
  if (store.read === undefined || feed.closed || (await sessions.peek(id)) !== undefined) return undefined
  const stored = await sessions.read(id)
  if (stored === undefined || stored.live !== undefined) return undefined
  if (needsRecovery(stored.events, stored.header.seedLength ?? 0)) return undefined
  const last = stored.events.length - 1
  const after = cursor === 'tail' ? last : cursor
  if (after > last) return undefined
  return coldSessionStream(sessions, feed, { ...options, id, stored: { header: stored.header, events: stored.events }, after })
}
