import { messageText, type InboxSplice, type SessionEvent } from '@bosun/core'
import { TurnChunks } from './ai-sdk-turn-chunks.js'
import { InboxFold } from './log.js'
import { sseStream } from './sse.js'
import { liveEnded, type LiveSession } from './live-session.js'
import { SLICE_EVENTS } from './log-prefix.js'
import { foldSliced } from './stream.js'
import { subscribe } from './subscription.js'

/**
 * The AI SDK UI message stream (v1) for one turn of a Bosun session: every frame is a translation
 * of a log event, read from the log by seq like the session stream (the writer never waits).
 * Steering, pre-step rejects and queue snapshots travel as `data-bosun-*` parts.
 */
const sse = (chunk: unknown): string => `data: ${JSON.stringify(chunk)}\n\n`

export interface TurnStreamOptions {
  /** The message whose turn is streamed (found by its claim), or the turn itself when resuming. */
  messageId?: string
  turn?: number
  /** Read the log after this seq. */
  after: number
  /** The inbox as it was at a seq at or before `after` ({@link inboxMark}): the fold continues from it. */
  mark?: InboxMark
  keepAliveMs: number
  onEnd: () => void
}

/** A live session's queues and the last seq of its log, read together: the log's inbox fold at that seq. */
export interface InboxMark {
  seq: number
  fold: InboxFold
}

/**
 * The inbox fold of a live session's log at its end, without reading the log: the agent's queues
 * are the fold of everything logged (a splice is appended as the inbox changes). The chat POST
 * takes one just before it admits, so its turn stream folds on from there instead of from seq 0.
 * Not from inside a session observer: there the splice being logged is in the log but not yet in
 * the queues (the inbox appends, then applies).
 */
export function inboxMark(live: LiveSession): InboxMark {
  const { session, inbox } = live.agent
  return { seq: session.length - 1, fold: InboxFold.continuing(inbox, session.header.seedLength ?? 0) }
}

/**
 * Where a turn stream reads a session's log: the live session's events on its owner, or the
 * store's events table on another host of a cluster (cluster/remote-chat.ts).
 */
export interface TurnLog {
  /**
   * The inbox fold of the log up to and including `after` (where the stream starts reading). Not
   * a pass over the log in one go: read by seq from a known fold, or a slice per macrotask.
   */
  foldTo(after: number): InboxFold | Promise<InboxFold>
  /** The events after `seq` known now, in order, maybe only the first of them (none: caught up). */
  since(seq: number): readonly SessionEvent[] | Promise<readonly SessionEvent[]>
  /**
   * The seq of `turn`'s turn/start, at or before `before`. A stream that finds its message
   * claimed by a turn begun before its cursor (a steer) replays that turn from there; a log
   * without it streams the turn from the claim on.
   */
  turnStart?(turn: number, before: number): number | undefined | Promise<number | undefined>
  /**
   * Optional: resolves once the log is stored through `seq` (never rejects). The stream's `finish`
   * waits for it, so a chat that has finished loads back whole — from this host or, on a cluster,
   * from any other, which reads committed events only. Without it (a log read from the store),
   * what was read is stored.
   */
  committed?(seq: number): Promise<void>
  /** Waits for new events or `ms`; true when it timed out. */
  wait(ms: number): Promise<boolean>
  ended(): boolean
  /** Releases the log (called once, when the stream closes). */
  end(): void
}

/** The UI message stream of a live session's turn, read from its agent's log. */
export function uiMessageStream(live: LiveSession, options: TurnStreamOptions): ReadableStream<Uint8Array> {
  const session = live.agent.session
  const seedLength = session.header.seedLength ?? 0
  const { mark } = options
  const subscription = subscribe(live, options.onEnd)
  return uiTurnStream({
    // After an idle seal `session.events` is a view whose every page a pass from seq 0 decodes:
    // continue from a fold the host already has (the POST's mark, the agent's queues at the tail),
    // reading only the events after it; anything else (a resume, a repeated message id) is folded
    // from seq 0 a slice per macrotask.
    foldTo: (after) => {
      if (mark !== undefined && mark.seq <= after) return foldSliced(session, mark.fold, mark.seq + 1, after)
      if (after === session.length - 1) return InboxFold.continuing(live.agent.inbox, seedLength)
      return foldSliced(session, new InboxFold(seedLength), 0, after)
    },
    // A slice at a time: a stream from far back (a repeated message id) would otherwise decode
    // and translate the rest of a sealed log in one go.
    since: (seq) => session.events.slice(seq + 1, seq + 1 + SLICE_EVENTS),
    // Back through the running turn's own events (a sealed log has no running turn).
    turnStart: (turn, before) => {
      for (let seq = before; seq >= 0; seq--) {
        const event = session.events[seq]!
        if (event.type === 'turn/start' && (event.data as { turn: number }).turn === turn) return seq
      }
      return undefined
    },
    // A write that fails is the session's to report (the turn was not stored): the stream ends as it would have.
    committed: async (seq) => {
      if (session.durableLength <= seq) await session.flush().catch(() => {})
    },
    wait: (ms) => subscription.wait(ms),
    ended: () => subscription.ended || liveEnded(live),
    end: () => subscription.end(),
  }, options)
}

/** The UI message stream of one turn, translated event by event from `log`. */
export function uiTurnStream(log: TurnLog, options: Omit<TurnStreamOptions, 'onEnd'>): ReadableStream<Uint8Array> {
  // Made at the first read (it may yield to the event loop), before any frame is translated.
  let fold: InboxFold | undefined
  let cursor = options.after
  let ourTurn = options.turn
  let currentTurn: number | undefined
  /** The message was claimed by a turn that began before the cursor, not yet named by an event. */
  let claimPending = false
  /** That turn, once named, and the seq of the event that named it: the stream replays the turn up to it. */
  let rewind: { turn: number; at: number } | undefined
  /** Events up to this seq are read a second time, replayed: their splices are in the fold already. */
  let replayThrough = -1
  let started = false
  let finished = false
  /** Our turn's chunks, made once the stream knows its turn. */
  let chunks: TurnChunks | undefined
  const ours = (): TurnChunks => (chunks ??= new TurnChunks(ourTurn!))
  const queueSnapshot = (): string => {
    const { queues } = fold!
    return sse({ type: 'data-bosun-queue', data: { 'next-turn': queues['next-turn'].map((m) => ({ id: m.id, text: messageText(m) })), 'next-step': queues['next-step'].map((m) => ({ id: m.id, text: messageText(m) })) }, transient: true })
  }
  const start = (): string => {
    started = true
    return sse(ours().start())
  }

  const translate = (event: SessionEvent): string => {
    if (event.type === 'turn/start') currentTurn = (event.data as { turn: number }).turn
    if (event.type === 'agent/inbox/spliced' && event.seq <= replayThrough) return ''
    if (event.type === 'agent/inbox/spliced') {
      const s = event.data as InboxSplice
      const removed = fold!.apply(event) ?? []
      // A move between the queues (a promote) neither claims nor cancels it.
      if (ourTurn === undefined && options.messageId !== undefined && s.outcome !== 'moved' && removed.some((m) => m.id === options.messageId)) {
        const kept = s.inserted.some((m) => m.id === options.messageId)
        if (s.outcome === 'canceled' && !kept) {
          finished = true
          return sse({ type: 'start' }) + sse({ type: 'data-bosun-canceled', data: { messageId: options.messageId } }) + sse({ type: 'finish', finishReason: 'other' })
        }
        if (s.outcome !== 'canceled') {
          // A claim. The stream may have started reading inside the turn that claims it (a steer
          // admitted while the turn runs: its turn/start is before the cursor); then the next event
          // naming a turn names it — a claim is followed by that turn's step/start, pre-step
          // reject or turn/end.
          if (currentTurn === undefined) {
            claimPending = true
            return ''
          }
          ourTurn = currentTurn
          return start() + queueSnapshot()
        }
      }
      return started ? queueSnapshot() : ''
    }
    let opening = ''
    if (claimPending && typeof (event.data as { turn?: unknown }).turn === 'number') {
      claimPending = false
      ourTurn = currentTurn = (event.data as { turn: number }).turn
      opening = start() + queueSnapshot()
      // The turn from its start, as every other stream of it has it: `useChat` keeps one message
      // per message id, and each open request writes it whole — a stream of the turn from the
      // steer on would replace the answer before it. This event is read again after the replay.
      if (log.turnStart !== undefined) {
        rewind = { turn: ourTurn, at: event.seq }
        return opening
      }
    }
    if (ourTurn === undefined) return ''
    return opening + translateOurs(event)
  }

  /** An event once the stream knows its turn: its parts, if it is of that turn. */
  const translateOurs = (event: SessionEvent): string => {
    if (!started && event.type === 'turn/start' && currentTurn === ourTurn) return start()
    const out = ours().translate(event, currentTurn)
    if (event.type === 'turn/end' && out.length > 0) finished = true
    return out.map(sse).join('')
  }

  if (ourTurn !== undefined) currentTurn = ourTurn

  let doneSent = false
  const done = (): string => {
    doneSent = true
    return 'data: [DONE]\n\n'
  }
  /**
   * The turn's last parts, held until the store has them (`log.committed`): sent by the read after
   * that, and meanwhile the stream waits on the commit with its keep-alives going on (a slow store
   * is not a silent stream a proxy would cut).
   */
  let held: HeldEnd | undefined
  // Keep-alive comments while a step produces nothing: the UI stream's SSE parser skips them.
  return sseStream({
    read: async () => {
      if (held !== undefined) {
        if (!held.stored) return ''
        const out = held.out
        held = undefined
        return out
      }
      if (doneSent) return null
      if (finished) return done()
      fold ??= await log.foldTo(options.after)
      let out = ''
      for (;;) {
        const events = await log.since(cursor)
        if (ourTurn !== undefined && !started && events.length > 0) out += start()
        for (const event of events) {
          if (finished) break
          cursor = event.seq
          out += translate(event)
          if (rewind !== undefined) break
        }
        if (rewind !== undefined) {
          const from = (await log.turnStart!(rewind.turn, rewind.at)) ?? rewind.at
          replayThrough = rewind.at - 1
          cursor = from - 1
          rewind = undefined
        }
        if (out !== '' || finished || events.length === 0) break
        // Events of other turns, before ours: read on (not wait for a new event), the event loop given back first.
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      // The turn's end (or the message's cancel) goes out once it is stored: a page that reloads the
      // chat when the stream finishes finds it, on any host.
      if (finished && out !== '' && log.committed !== undefined) {
        const holding: HeldEnd = { out, stored: false, storing: Promise.resolve() }
        holding.storing = log.committed(cursor).then(() => {
          holding.stored = true
        })
        held = holding
        return ''
      }
      return out === '' && finished ? done() : out
    },
    // Held parts already stored are sent by the next read at once.
    wait: (ms) => (held === undefined ? log.wait(ms) : held.stored ? Promise.resolve(false) : storedWithin(held.storing, ms)),
    // Once the turn's end is read, the stream ends by itself: its parts (held for the store) and
    // [DONE] go out even if the log ends meanwhile (the session closed, the lease lost) — the turn
    // did end, and its client would otherwise never get `finish`.
    ended: () => !finished && log.ended(),
    end: () => log.end(),
  }, options.keepAliveMs)
}

/** A turn's last parts waiting for the store (`TurnLog.committed`). */
interface HeldEnd {
  out: string
  stored: boolean
  storing: Promise<void>
}

/** Waits for `storing` or `ms`; true when it timed out (a keep-alive is due). */
function storedWithin(storing: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), ms)
  })
  return Promise.race([storing.then(() => false), timeout]).finally(() => clearTimeout(timer))
}

/** The turn a resume should stream: the open one (its `turn/start` seq), if any. */
export function openTurn(events: readonly SessionEvent[]): { turn: number; seq: number } | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/end') return undefined
    if (event.type === 'turn/start') return { turn: (event.data as { turn: number }).turn, seq: event.seq }
  }
  return undefined
}
