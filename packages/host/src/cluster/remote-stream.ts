import type { SessionEvent } from '@bosun/core'
import { InboxFold } from '../log.js'
import { sseFrame as frame, sseStream } from '../sse.js'
import { StatusIndex } from '../status-fold.js'
import { noteFinishedStep, removedFrame, storedHello, type StreamOptions } from '../stream.js'
import type { WatchChanges } from '../summary.js'
import { SessionWake } from './session-wake.js'
import type { ClusterStore, ClusterWatcher } from './store.js'

/** A local stream's options, and the log as read when the client connected. */
export interface RemoteStreamOptions extends StreamOptions {
  events: readonly SessionEvent[]
  seedLength: number
  /** The host stream's watch: the session's removal (on any host) ends the stream with `session.removed`. */
  watch?: WatchChanges
}

/**
 * A session's SSE stream served by a host that does not own the session: the same frames as
 * `sessionStream` (hello, every event with its seq, the derived inbox and status frames), read
 * from the store's events table by seq and woken by the store's wake-ups (LISTEN/NOTIFY, polling
 * when a NOTIFY was lost). Only committed events are sent, so a client never sees an event the
 * owner could still lose in a crash, and the seqs it resumes from are the log's.
 *
 * The hello needs a pass over the whole log read (the fingerprint up to the cursor, the queues
 * and status at its end): it is made in `first`, a slice per macrotask (`storedHello`), so that
 * a long log does not hold the host's event loop for one request.
 */
export function remoteStream(store: ClusterStore, watcher: ClusterWatcher, id: string, options: RemoteStreamOptions): { stream: ReadableStream<Uint8Array>; end: () => void } {
  const { events, seedLength } = options
  const fold = new InboxFold(seedLength)
  // Noted by the hello's pass over the log read, then by the reads.
  const statuses = new StatusIndex(seedLength)
  const finishedSteps = new Set<string>()
  let pending: SessionEvent[] = []
  let cursor = options.after

  // The hello describes the session now (the end of what was read); the replay follows from the cursor.
  const hello = async (): Promise<string> => {
    const data = await storedHello(events, seedLength, cursor, fold, finishedSteps, statuses)
    pending = events.slice(cursor + 1)
    return `retry: 1000\n${frame('hello', data)}`
  }

  let removed = false
  const unwatch = options.watch?.((changed, gone) => {
    if (changed !== id || gone !== true) return
    removed = true
    wake.end()
  })
  const wake = new SessionWake(watcher, id, () => {
    unwatch?.()
    options.onEnd()
  })
  const end = (): void => wake.end()

  const read = async (): Promise<string> => {
    for (;;) {
      if (pending.length === 0) {
        wake.reading()
        pending = await store.readEvents(id, cursor + 1, options.batch)
        for (const event of pending) noteFinishedStep(finishedSteps, event)
      }
      if (pending.length === 0) return ''
      let out = ''
      for (const event of pending) {
        cursor = event.seq
        const spliced = fold.apply(event)
        const changed = statuses.statusAfter(event)
        if (!options.chunks && event.type === 'assistant/chunk') {
          const { turn, step } = event.data as { turn: number; step: number }
          if (finishedSteps.has(`${turn}:${step}`)) continue
        }
        out += frame('session.event', event, event.seq) + (spliced ? frame('session.inbox', fold.snapshot()) : '') + (changed ? frame('session.status', { status: changed, seq: event.seq }) : '')
      }
      pending = []
      // A batch of only skipped chunks: read on rather than wait for the next wake-up.
      if (out !== '') return out
    }
  }

  const stream = sseStream({
    first: hello,
    read: () => (wake.ended ? null : read()),
    wait: (ms) => wake.wait(ms),
    ended: () => wake.ended,
    end,
    final: () => removedFrame(id, removed),
  }, options.keepAliveMs)
  return { stream, end }
}
