import type { InboxSplice, SessionEvent } from '@bosun/core'
import { SLICE_EVENTS } from './log-prefix.js'

/** The `source.delivery` of the agent's waking sends (core's `followup()` and `steer()`); `inject` queues without a wake. */
const WAKING_DELIVERIES = new Set(['followup', 'steer'])

/**
 * The `session.status` frames of a session stream, from its log: `running` at `turn/start`,
 * `idle` at `turn/end`, and `idle` said again after a splice that queues input into an idle
 * session that nothing is about to start — an `inject`, a plugin's splice without a wake (a
 * subagent's settlement a recovery parked), an edit of such input — so that a client that shows
 * input waiting with nothing to run it (the web UI's "Queued, not running") learns it live, not
 * only from the next `hello`. Nothing is about to start when no waking send has queued input
 * since the last `turn/end`: a waking send into an idle session starts a turn (its `turn/start`
 * says `running`), and input queued after it rides that turn. A waking send is told as core's
 * recovery tells it (`noteWaiting`, store/repair.ts): a splice that queues a message whose id was
 * never queued before (after a fork's seed), with `source.delivery` `followup` or `steer`. A
 * message queued again — an edit or a reorder (its id leaves and enters in one splice), a move to
 * the other queue — is no send and wakes nothing, whatever its source says.
 *
 * One exception to core's count: a plugin putting back what a claim took (`inbox.requeue()`: a
 * follow-up its pre-step rejected) may wake the agent right after — the rate-limit plugin does, and
 * its `turn/start` follows — or not. The wake is not logged (the splice carries no source or
 * reason; `agent.wake()` appends nothing), so the log does not tell the two apart, and core's
 * recovery counts both as parked. A put-back is taken for a possible wake: no `idle` after it nor
 * after input queued behind it until the next `turn/end` — never "Queued, not running" flashed
 * before a turn that starts. One nothing wakes shows as waiting from the next `hello` on.
 *
 * An index of the log, not a fold a stream carries: it keeps the seqs of the turn boundaries and
 * of the waking sends, so the frame after any seq is a look-up (two binary searches) — a pure
 * function of the log, whichever stream asks and from whichever cursor, so a replay sends what the
 * live stream sent. Events are noted in seq order, each once: a live session's index is shared by
 * its streams and made once ({@link statusReady}, a slice per macrotask, like the hello's
 * fingerprint); a stored log's is noted in the pass its hello makes anyway (`storedHello`). A
 * stream's open reads nothing back synchronously: a long running turn's chunks, or a session that
 * only ever gets injects, once cost a read back to the last turn boundary on every open. To know
 * what a claim took it replays the queues' ids (small: what is pending).
 */
export class StatusIndex {
  /** Seqs of `turn/start` and `turn/end`, ascending; `#starts[i]`: whether `#boundaries[i]` is a start. */
  readonly #boundaries: number[] = []
  readonly #starts: boolean[] = []
  /** Seqs of the splices of waking sends (and of put-backs, {@link StatusIndex}), ascending. */
  readonly #wakes: number[] = []
  /** The ids every splice noted (after the seed) has queued: one queued again is not sent again. */
  readonly #queued = new Set<string>()
  /** The ids pending in each queue, replayed from the splices (after the seed). */
  readonly #pending: Record<string, string[]> = { 'next-turn': [], 'next-step': [] }
  /** Ids a claim took and no splice has put back since. */
  readonly #claimed = new Set<string>()
  #upTo = -1

  constructor(readonly seedLength = 0) {}

  /** The last seq noted. */
  get upTo(): number {
    return this.#upTo
  }

  /** Notes one event, in seq order; one already noted is skipped. */
  note(event: SessionEvent): void {
    if (event.seq <= this.#upTo) return
    this.#upTo = event.seq
    statusStats.noted++
    if (event.type === 'turn/start' || event.type === 'turn/end') {
      this.#boundaries.push(event.seq)
      this.#starts.push(event.type === 'turn/start')
    } else if (this.#isWakingSend(event)) {
      this.#wakes.push(event.seq)
    }
  }

  /** The status a `session.status` frame says after `event`, if one follows it (noting the event first). */
  statusAfter(event: SessionEvent): 'running' | 'idle' | undefined {
    this.note(event)
    if (event.type === 'turn/start') return 'running'
    if (event.type === 'turn/end') return 'idle'
    if (!this.#queues(event)) return undefined
    const boundary = lastBelow(this.#boundaries, event.seq)
    if (boundary >= 0 && this.#starts[boundary]) return undefined
    // A waking send since the last turn/end (or since the log began): its turn/start follows.
    const since = boundary >= 0 ? this.#boundaries[boundary]! : -1
    const wake = lastBelow(this.#wakes, event.seq + 1)
    return wake >= 0 && this.#wakes[wake]! > since ? undefined : 'idle'
  }

  /** A splice of this session (not its fork's seed) that puts input in a queue. */
  #queues(event: SessionEvent): boolean {
    return event.type === 'agent/inbox/spliced' && event.seq >= this.seedLength && (event.data as InboxSplice).inserted.length > 0
  }

  /**
   * Whether `event` is a splice of a waking send, or of a put-back its plugin may wake for; notes
   * the ids it queues, and replays it on the queues: a claim is a pure deletion with no `outcome`
   * (a cancel's says `canceled`, a move's first half `moved`).
   */
  #isWakingSend(event: SessionEvent): boolean {
    if (event.type !== 'agent/inbox/spliced' || event.seq < this.seedLength) return false
    const splice = event.data as InboxSplice
    const queue = this.#pending[splice.target] ?? (this.#pending[splice.target] = [])
    const removed = queue.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted.map((message) => message.id))
    if (splice.inserted.length === 0) {
      if (splice.outcome === undefined) for (const id of removed) this.#claimed.add(id)
      return false
    }
    let wakes = false
    for (const message of splice.inserted) {
      if (this.#claimed.delete(message.id)) wakes = true
      if (this.#queued.has(message.id)) continue
      this.#queued.add(message.id)
      if (WAKING_DELIVERIES.has(message.source.delivery as string)) wakes = true
    }
    return wakes
  }
}

/** Index of the last element of ascending `seqs` below `seq`, -1 if none. */
function lastBelow(seqs: readonly number[], seq: number): number {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (seqs[middle]! < seq) low = middle + 1
    else high = middle
  }
  return low - 1
}

/** @internal For tests: events the indexes noted, and the times {@link statusReady} gave the event loop back. */
export const statusStats = { noted: 0, yields: 0 }

/** A live session's log, read by seq (its `Session`: one index for its whole life, across seals). */
export interface IndexedLog {
  readonly length: number
  eventAt(seq: number): SessionEvent | undefined
}

const indexes = new WeakMap<IndexedLog, StatusIndex>()

/** The status index of a live session's log, shared by its streams; {@link statusReady} makes it cover a cursor. */
export function statusIndexOf(log: IndexedLog, seedLength = 0): StatusIndex {
  let index = indexes.get(log)
  if (index === undefined) indexes.set(log, (index = new StatusIndex(seedLength)))
  return index
}

/** Notes the log up to `seq` into its index, {@link SLICE_EVENTS} per macrotask: what is noted already is not read again. */
export async function statusReady(log: IndexedLog, seq: number, seedLength = 0): Promise<StatusIndex> {
  const index = statusIndexOf(log, seedLength)
  const last = Math.min(seq, log.length - 1)
  while (index.upTo < last) {
    const stop = Math.min(last, index.upTo + SLICE_EVENTS)
    for (let next = index.upTo + 1; next <= stop; next++) index.note(log.eventAt(next)!)
    if (index.upTo >= last) break
    statusStats.yields++
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  return index
}
