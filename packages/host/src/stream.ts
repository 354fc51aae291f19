import type { Session, SessionEvent } from '@bosun/core'
import { InboxFold } from './log.js'
import { logPrefix, prefixReady, SLICE_EVENTS } from './log-prefix.js'
import { liveEnded, type LiveSession } from './live-session.js'
import { sseFrame as frame, sseStream } from './sse.js'
import { StatusIndex, statusReady } from './status-fold.js'
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
 * A log a session stream reads by seq: a live session's (growing), or a copy read from the store
 * (a cold session's, see cold-stream.ts). Both give the same frames for the same seqs.
 */
export interface StreamLog {
  readonly events: readonly SessionEvent[]
  /** Steps (`turn:step`) whose `assistant/message` is in the log: their chunks are history. */
  readonly finishedSteps: ReadonlySet<string>
  /** The frames of one seq, serialised once for every subscriber of the log (when it has a cache). */
  frames?(seq: number, compute: () => string): string
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

/** A live session's log as a stream reads it. */
export function liveLog(live: LiveSession): StreamLog {
  const session = live.agent.session
  return {
    // Read at each use: once the idle sweep seals the session's log, `events` is a view of it and
    // the array read before stops growing (a stream kept across an idle time would miss events).
    get events() {
      return session.events
    },
    finishedSteps: live.finishedSteps,
    frames: (seq, compute) => cachedFrames(live, seq, compute),
  }
}

export function statusAfter(event: SessionEvent): 'running' | 'idle' | undefined {
  if (event.type === 'turn/start') return 'running'
  if (event.type === 'turn/end') return 'idle'
  return undefined
}

/** The frames a stream's read stops after, in bytes of UTF-8 — what the connection carries (`readFrames`). */
const READ_BYTES = 64 * 1024

/**
 * Reads the frames after `cursor`, a batch at a time, folding every event into `fold` and noting
 * it in `statuses` (each splice is followed by the queues it leaves, each turn boundary — and a
 * splice that queues input nothing will start, {@link StatusIndex} — by the status): '' once the
 * log is caught up. A batch can be all skipped chunks: it reads on until something is sent.
 */
export function readFrames(
  log: StreamLog,
  fold: InboxFold,
  cursor: number,
  options: Pick<StreamOptions, 'chunks' | 'batch'>,
  // A stream's covers its cursor (made in its `first`); a single read (tests) notes the log up to it here.
  statuses: StatusIndex = indexUpTo(log.events, cursor),
): { out: string; cursor: number } {
  const last = log.events.length - 1
  while (cursor < last) {
    let out = ''
    let bytes = 0
    const stop = Math.min(last, cursor + options.batch)
    for (let seq = cursor + 1; seq <= stop; seq++) {
      const event = log.events[seq]!
      // Noted before a chunk is skipped: the index is noted in seq order.
      const status = statuses.statusAfter(event)
      if (!options.chunks && event.type === 'assistant/chunk') {
        const { turn, step } = event.data as { turn: number; step: number }
        if (log.finishedSteps.has(`${turn}:${step}`)) continue
      }
      // Every subscriber folds the same events, so the frames after an event are the same for all.
      const spliced = fold.apply(event)
      const compute = (): string => frame('session.event', event, seq) + (spliced ? frame('session.inbox', fold.snapshot()) : '') + (status ? frame('session.status', { status, seq }) : '')
      const frames = log.frames === undefined ? compute() : log.frames(seq, compute)
      out += frames
      // A read holds about READ_BYTES of frames at most (an event at least): what a stream has
      // read ahead of its client stays small, however long the batch's events. Bytes, not
      // `out.length` (UTF-16 units): text outside ASCII takes up to 3 bytes a unit on the wire.
      bytes += Buffer.byteLength(frames)
      if (bytes >= READ_BYTES) return { out, cursor: seq }
    }
    cursor = stop
    if (out !== '') return { out, cursor }
  }
  return { out: '', cursor }
}

/** A status index of `events` noted up to `cursor` in one go: for a single read (tests), never a stream's open. */
function indexUpTo(events: readonly SessionEvent[], cursor: number): StatusIndex {
  const index = new StatusIndex()
  for (let seq = 0; seq <= cursor; seq++) index.note(events[seq]!)
  return index
}

/** @internal For tests: events a stream folded from a log before its first frame, and the times it gave the event loop back. */
export const foldStats = { folded: 0, yields: 0 }

/**
 * Calls `each` for seqs `from` … `to`, {@link SLICE_EVENTS} per macrotask: the host's one way to
 * make a pass over a log that a request cannot avoid (a fold from seq 0, a stored log's hello)
 * without holding the event loop — every other session's stream and turn — for the whole log.
 */
export async function eachSliced(from: number, to: number, each: (seq: number) => void): Promise<void> {
  for (let seq = from; seq <= to; seq++) {
    each(seq)
    if ((seq - from + 1) % SLICE_EVENTS === 0 && seq < to) {
      foldStats.yields++
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }
}

/**
 * Folds `log` (read by seq) on from `fold` over seqs `from` … `to`, a slice per macrotask: once the
 * idle seal has paged a live log, reading it from seq 0 decodes every page (~6 µs an event), which
 * in one go held the host's event loop for a whole 50,000-event log.
 */
export async function foldSliced(log: { eventAt(seq: number): SessionEvent | undefined }, fold: InboxFold, from: number, to: number): Promise<InboxFold> {
  await eachSliced(from, to, (seq) => fold.apply(log.eventAt(seq)!))
  foldStats.folded += Math.max(0, to - from + 1)
  return fold
}

/** Adds the step of an `assistant/message` to `finishedSteps` (whose chunks `?chunks=false` skips). */
export function noteFinishedStep(finishedSteps: Set<string>, event: SessionEvent): void {
  if (event.type !== 'assistant/message') return
  const { turn, step } = event.data as { turn: number; step: number }
  finishedSteps.add(`${turn}:${step}`)
}

/**
 * The hello of a log read from a store — a cold stream's, a cluster host's (where it ends, its
 * status, its inbox version and queues, the fingerprint up to `cursor`) — and the stream's state
 * for the replay: `fold` folded up to `cursor`, `finishedSteps` filled, every event noted in
 * `statuses` (its status frames, status-fold.ts). One pass over the log, a
 * slice per macrotask ({@link eachSliced}), the fingerprint by `prefixReady`: in one go, a long log
 * held the host's event loop — every other session's stream and turn — for the whole pass.
 */
export async function storedHello(events: readonly SessionEvent[], seedLength: number, cursor: number, fold: InboxFold, finishedSteps: Set<string>, statuses: StatusIndex): Promise<unknown> {
  // Folded from seq 0 to the end: the queues now, beside the fold up to the cursor.
  const now = new InboxFold(seedLength)
  let status: 'running' | 'idle' = 'idle'
  let inboxVersion = -1
  await eachSliced(0, events.length - 1, (seq) => {
    const event = events[seq]!
    if (seq <= cursor) fold.apply(event)
    if (now.apply(event)) inboxVersion = event.seq
    status = statusAfter(event) ?? status
    statuses.note(event)
    noteFinishedStep(finishedSteps, event)
  })
  await prefixReady(events, cursor)
  return { lastSeq: events.length - 1, status, inboxVersion, inbox: now.snapshot(), prefix: logPrefix(events, cursor) }
}

/** The fold of a live session's splices up to and including `cursor`, read by seq ({@link foldSliced}). */
function foldLive(session: Session, seedLength: number, cursor: number): Promise<InboxFold> {
  return foldSliced(session, new InboxFold(seedLength), 0, cursor)
}

/**
 * One subscriber of a session's SSE stream. It holds no copy of the events: it keeps a cursor (the
 * last seq it sent) and reads the session's log by seq when the client pulls. The session's
 * writer only signals new events (never awaits a client), so a client that stops reading holds
 * back nothing but its own cursor; when it reads again it continues from the log, with no gap.
 * Derived frames (`session.inbox` after each splice, `session.status` at turn boundaries and
 * after input queued that nothing will start) are folded from the same events, so a replay and a
 * live stream send the same frames.
 */
export function sessionStream(live: LiveSession, options: StreamOptions): ReadableStream<Uint8Array> {
  const session = live.agent.session
  const seedLength = session.header.seedLength ?? 0
  let cursor = Math.min(options.after, session.length - 1)
  // At the log's end the agent's inbox is the fold of the whole log (a splice is logged as the
  // inbox changes, inbox-fold.test.ts): a stream from the tail — a caught-up client's reconnect —
  // folds nothing. Any other cursor is folded in `first`, a slice at a time. Not from inside a
  // session observer: there the splice being logged is in the log but not yet in the queues (the
  // inbox appends, then applies), and the stream would start one splice behind. The route builds
  // streams after an await, never inside an append.
  let fold = cursor === session.length - 1 ? InboxFold.continuing(live.agent.inbox, seedLength) : undefined
  // The session's status index, shared by its streams: made to cover the cursor in `first`.
  let statuses: StatusIndex | undefined
  const log = liveLog(live)
  const subscription = subscribe(live, options.onEnd)

  return sseStream({
    // The hello baseline describes the session now, and the log up to the cursor (its `prefix`
    // fingerprint, which a reconnecting client checks); replay follows from the cursor.
    first: async () => {
      fold ??= await foldLive(session, seedLength, cursor)
      statuses = await statusReady(session, cursor, seedLength)
      // The fingerprint first, a slice per macrotask: a long log must not hold other sessions up.
      // Keyed on the session, not on `session.events`: a seal replaces that (log-prefix.ts).
      await prefixReady(session, cursor)
      const inbox = { 'next-turn': [...live.agent.inbox.nextTurn], 'next-step': [...live.agent.inbox.nextStep] }
      const hello = { lastSeq: session.length - 1, status: live.agent.status, inboxVersion: live.inboxSeq, inbox, prefix: logPrefix(session, cursor) }
      return `retry: 1000\n${frame('hello', hello)}`
    },
    read: () => {
      // `first` has run: the fold is made, the index covers the cursor.
      const next = readFrames(log, fold!, cursor, options, statuses!)
      cursor = next.cursor
      return next.out
    },
    wait: (ms) => subscription.wait(ms),
    ended: () => subscription.ended || liveEnded(live),
    end: () => subscription.end(),
    settle,
    final: () => removedFrame(live.id, live.removal === 'removed'),
  }, options.keepAliveMs)
}

/**
 * A removed session's stream ends with `event: session.removed`, `data: {"id"}` (no id: nothing
 * to resume — a reconnect is answered 404), then closes; '' for a stream that ends otherwise.
 */
export function removedFrame(id: string, removed: boolean): string {
  return removed ? frame('session.removed', { id }) : ''
}

/**
 * Woken by an append: let the rest of this burst (a model's chunks, a claim's splices) land
 * first, so that the subscriber gets one write for the burst, not one per event.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
