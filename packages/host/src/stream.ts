import type { SessionEvent } from '@bosun/core'
import { InboxFold } from './log.js'
import type { LiveSession } from './sessions.js'
import { sseFrame as frame, sseStream } from './sse.js'
import { subscribe } from './subscription.js'

export interface StreamOptions {
  /** Last seq the client has; events after it are sent. -1 = from seq 0. */
  after: number
  keepAliveMs: number
  /** `?chunks=false`: leave out the `assistant/chunk` events of finished steps (their `assistant/message` carries them). */
  chunks: boolean
  /** Events read from the log per pull. */
  batch: number
  /** Called once the stream ends (client gone or host closing). */
  onEnd: () => void
}

/**
 * The frames of a session's recent events, shared by its subscribers: each event (with the
 * derived frames that follow it) is serialised once, not once per subscriber — with many
 * subscribers on one session, per-subscriber JSON (a full queue snapshot after every splice)
 * was most of the host's work. Bounded: older seqs (a replay from far back) are serialised again.
 */
const frameCaches = new WeakMap<LiveSession, Map<number, string>>()
const FRAME_CACHE_SIZE = 4096

function cachedFrames(live: LiveSession, seq: number, compute: () => string): string {
  let cache = frameCaches.get(live)
  if (!cache) frameCaches.set(live, (cache = new Map()))
  let frames = cache.get(seq)
  if (frames === undefined) {
    frames = compute()
    cache.set(seq, frames)
    if (cache.size > FRAME_CACHE_SIZE) cache.delete(cache.keys().next().value!)
  }
  return frames
}

export function statusAfter(event: SessionEvent): 'running' | 'idle' | undefined {
  if (event.type === 'turn/start') return 'running'
  if (event.type === 'turn/end') return 'idle'
  return undefined
}

/**
 * One subscriber of a session's SSE stream. It holds no copy of the events: it keeps a cursor (the
 * last seq it sent) and reads the session's log by seq when the client pulls. The session's
 * writer only signals new events (never awaits a client), so a client that stops reading holds
 * back nothing but its own cursor; when it reads again it continues from the log, with no gap.
 * Derived frames (`session.inbox` after each splice, `session.status` at turn boundaries) are
 * folded from the same events, so a replay and a live stream send the same frames.
 */
export function sessionStream(live: LiveSession, options: StreamOptions): ReadableStream<Uint8Array> {
  const session = live.agent.session
  const seedLength = session.header.seedLength ?? 0
  let cursor = Math.min(options.after, session.length - 1)
  const fold = new InboxFold(seedLength)
  for (let i = 0; i <= cursor; i++) fold.apply(session.events[i]!)
  const subscription = subscribe(live, options.onEnd)

  return sseStream({
    // The hello baseline describes the session now; replay follows from the cursor.
    first: () => {
      const inbox = { 'next-turn': [...live.agent.inbox.nextTurn], 'next-step': [...live.agent.inbox.nextStep] }
      const hello = { lastSeq: session.length - 1, status: live.agent.status, inboxVersion: live.inboxSeq, inbox }
      return `retry: 1000\n${frame('hello', hello)}`
    },
    read: () => {
      // A batch can be all skipped chunks: read on until something is sent or the log is caught up.
      while (cursor < session.length - 1) {
        let out = ''
        const stop = Math.min(session.length - 1, cursor + options.batch)
        for (let seq = cursor + 1; seq <= stop; seq++) {
          const event = session.events[seq]!
          if (!options.chunks && event.type === 'assistant/chunk') {
            const { turn, step } = event.data as { turn: number; step: number }
            if (live.finishedSteps.has(`${turn}:${step}`)) continue
          }
          // Every subscriber folds the same events, so the frames after an event are the same for all.
          const spliced = fold.apply(event)
          out += cachedFrames(live, seq, () => {
            const status = statusAfter(event)
            return frame('session.event', event, seq) + (spliced ? frame('session.inbox', fold.snapshot()) : '') + (status ? frame('session.status', { status, seq }) : '')
          })
        }
        cursor = stop
        if (out !== '') return out
      }
      return ''
    },
    wait: (ms) => subscription.wait(ms),
    ended: () => subscription.ended || live.closed === true,
    end: () => subscription.end(),
    // Woken by an append: let the rest of this burst (a model's chunks, a claim's splices) land
    // first, so that the subscriber gets one write for the burst, not one per event.
    settle: () => new Promise((resolve) => setImmediate(resolve)),
  }, options.keepAliveMs)
}

