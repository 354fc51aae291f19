import type { InboxSplice, SessionEvent } from '@bosun/core'

/** The `source.delivery` of the agent's waking sends (core's `followup()` and `steer()`); `inject` queues without a wake. */
const WAKING_DELIVERIES = new Set(['followup', 'steer'])

/**
 * The `session.status` frames of a session stream, folded from its log: `running` at `turn/start`,
 * `idle` at `turn/end`, and `idle` said again after a splice that queues input into an idle
 * session that nothing is about to start — an `inject`, a plugin's splice without a wake (a
 * subagent's settlement a recovery parked), an edit of such input — so that a client that shows
 * input waiting with nothing to run it (the web UI's "Queued, not running") learns it live, not
 * only from the next `hello`. Nothing is about to start when no waking send (a message whose
 * `source.delivery` is `followup` or `steer`) has queued input since the last `turn/end`: a waking
 * send into an idle session starts a turn (its `turn/start` says `running`), and input queued
 * after it rides that turn. A pure fold of the log, so a replay sends what the live stream sent.
 */
export class StatusFold {
  #status: 'running' | 'idle' = 'idle'
  /** A waking send queued input since the last turn boundary: a turn is about to start. */
  #turnOwed = false

  private constructor(readonly seedLength: number) {}

  /**
   * The fold up to and including `cursor`, read backwards from it to the last turn boundary (a
   * running turn's events, or the splices since an idle session's last `turn/end`), not from seq 0.
   */
  static at(eventAt: (seq: number) => SessionEvent | undefined, cursor: number, seedLength = 0): StatusFold {
    const fold = new StatusFold(seedLength)
    for (let seq = cursor; seq >= 0; seq--) {
      const event = eventAt(seq)
      if (event === undefined) break
      if (event.type === 'turn/start') {
        fold.#status = 'running'
        break
      }
      if (event.type === 'turn/end') break
      if (fold.#wakes(event)) fold.#turnOwed = true
    }
    return fold
  }

  /** Applies one event: the status a `session.status` frame says after it, if one follows it. */
  apply(event: SessionEvent): 'running' | 'idle' | undefined {
    if (event.type === 'turn/start' || event.type === 'turn/end') {
      this.#status = event.type === 'turn/start' ? 'running' : 'idle'
      this.#turnOwed = false
      return this.#status
    }
    if (this.#status !== 'idle' || !this.#queues(event)) return undefined
    if (this.#wakes(event)) this.#turnOwed = true
    return this.#turnOwed ? undefined : 'idle'
  }

  /** A splice of this session (not its fork's seed) that puts input in a queue. */
  #queues(event: SessionEvent): boolean {
    return event.type === 'agent/inbox/spliced' && event.seq >= this.seedLength && (event.data as InboxSplice).inserted.length > 0
  }

  #wakes(event: SessionEvent): boolean {
    return this.#queues(event) && (event.data as InboxSplice).inserted.some((message) => WAKING_DELIVERIES.has(message.source.delivery as string))
  }
}
