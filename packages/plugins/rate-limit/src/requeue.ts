import type { Inbox, SessionEvent, Session, UserMessage } from '@bosun/core'
import { MAX_TIMER_MS } from './sleep.js'

interface Pending {
  dueAt: number
  order: number
  messages: readonly UserMessage[]
}

/**
 * Puts rejected messages back at the head of `next-turn` when their limit allows them again.
 *
 * The claim was the commit point; `inbox.requeue()` brings the claimed messages back under their
 * own ids (logged as an `agent/inbox/spliced` event like any other input). Batches are put back
 * in the order they are due (ties in the order they were rejected), each behind the requeued
 * messages still waiting at the head, so requeued input keeps its FIFO order and goes before
 * anything queued after it.
 *
 * After the splice the agent is woken: an idle agent starts a turn for the requeued input, a
 * running driver picks it up after its current turn. Closing the agent cancels the timers; the
 * plugin logs each requeue (`rate-limit/requeued`), so the next process on the session schedules
 * again what was not put back yet, and wakes for what was put back just before the previous one
 * stopped ({@link outstandingRequeues}).
 */
export class Requeue {
  #pending: Pending[] = []
  #order = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  /** Ids of messages this requeue put back, to find the end of the requeued run at the head. */
  #requeued = new Set<string>()

  constructor(
    private readonly inbox: Inbox,
    private readonly session: Session,
    private readonly wake: () => void,
    /** The plugin's clock (the agent's `now`), the one the verdicts use. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Restores what a previous process logged (see {@link outstandingRequeues}): the messages it put
   * back still count as the requeued run at the head of `next-turn`, so restored batches go behind
   * them, and the requeues it did not carry out are scheduled at their due time.
   */
  restore({ putBack, outstanding }: LoggedRequeues): void {
    this.#requeued = new Set(putBack)
    for (const { messages, dueAt } of outstanding) this.schedule(messages, dueAt)
  }

  /** Drops the pending requeues (`agent.cancel()`) and returns the ids of their messages. */
  cancel(): string[] {
    const ids = this.#pending.flatMap((pending) => pending.messages.map((message) => message.id))
    this.dispose()
    return ids
  }

  /** Cancels the pending requeues (the agent is closing). */
  dispose(): void {
    clearTimeout(this.#timer)
    this.#pending = []
  }

  /** Puts `messages` back at the head of `next-turn` at `dueAt` (a time of the plugin's clock). */
  schedule(messages: readonly UserMessage[], dueAt: number): void {
    if (messages.length === 0) return
    this.#pending.push({ dueAt, order: this.#order++, messages })
    this.#pending.sort((a, b) => a.dueAt - b.dueAt || a.order - b.order)
    this.#arm()
  }

  #arm(): void {
    clearTimeout(this.#timer)
    const next = this.#pending[0]
    if (!next) return
    // A due time past a timer's longest wait is reached in steps: #deliver finds nothing due and arms again.
    this.#timer = setTimeout(() => this.#deliver(), Math.min(MAX_TIMER_MS, Math.max(0, next.dueAt - this.now())))
    // A requeue is not a reason to keep the process alive (see the class comment).
    this.#timer.unref?.()
  }

  #deliver(): void {
    const now = this.now()
    while (this.#pending[0] && this.#pending[0].dueAt <= now) this.#putBack(this.#pending.shift()!.messages)
    this.#arm()
  }

  #putBack(due: readonly UserMessage[]): void {
    // A message already back in the inbox (sent again, or re-queued by recovery) stays where it is.
    const messages = due.filter((message) => this.inbox.find(message.id) === undefined)
    if (messages.length === 0) return
    const queue = this.inbox.nextTurn
    let at = 0
    while (at < queue.length && this.#requeued.has(queue[at]!.id)) at++
    // Only the requeued run still at the head matters from now on (the rest were claimed or canceled).
    this.#requeued = new Set(queue.slice(0, at).map((message) => message.id))
    try {
      // requeue(), not splice(): an id the session has seen may enter again only as the claimed message it was.
      this.inbox.requeue('next-turn', at, messages)
      for (const message of messages) this.#requeued.add(message.id)
      this.wake()
    } catch (error) {
      // A timer has no caller to throw to: e.g. the agent was closed, or the id was sent again.
      this.session.reportError(error, 'rate-limit requeue')
    }
  }
}

/** The data of `rate-limit/requeued`: claimed messages that go back to `next-turn` at `dueAt`. */
export interface RateLimitRequeued {
  turn: number
  /** When they go back, epoch milliseconds on the agent's clock. */
  dueAt: number
  messages: readonly UserMessage[]
}

/** What the log says about requeues: see {@link outstandingRequeues}. */
export interface LoggedRequeues {
  /** Ids of requeued messages that were inserted again (put back, or sent again). */
  putBack: string[]
  /** The requeues not carried out yet, in log order, each with its messages still outstanding. */
  outstanding: RateLimitRequeued[]
  /**
   * Ids of requeued messages put back after the log's last `turn/start` and `turn/end`: the
   * previous process stopped between the put-back and the turn its wake starts. The wake is still
   * owed — core's recovery counts a message a turn took and a plugin put back as parked.
   */
  unwoken: string[]
}

/** The data of `rate-limit/requeue-canceled`: `agent.cancel()` dropped these pending requeues. */
export interface RateLimitRequeueCanceled {
  ids: readonly string[]
}

/**
 * The requeues a previous process logged, from `events[from]` on (a fork's own events: its seed
 * is the parent's history, whose pending input a fork does not take over): the messages of each
 * `rate-limit/requeued` event that a later `agent/inbox/spliced` event inserted again, and the
 * requeues with messages no later splice inserted nor `rate-limit/requeue-canceled` dropped — the
 * process stopped before their timer — and the messages put back with no turn after them (see
 * {@link LoggedRequeues.unwoken}). One pass, at setup.
 *
 * A turn that started after a put-back took the put-back messages (or a user's Stop parked them
 * as it opened); one that was running at the put-back ends after it, and core's recovery owes
 * the queue its turns after that end as for any input pending there (or parks it after a Stop).
 * Either way nothing is owed by this plugin.
 */
export function outstandingRequeues(events: readonly SessionEvent[], from = 0): LoggedRequeues {
  const requeues: RateLimitRequeued[] = []
  /** Outstanding message ids → the index of their requeue in `requeues`. */
  const waiting = new Map<string, number>()
  const putBack: string[] = []
  let unwoken: string[] = []
  for (let i = from; i < events.length; i++) {
    const event = events[i]!
    if (event.type === 'turn/start' || event.type === 'turn/end') {
      if (unwoken.length > 0) unwoken = []
    } else if (event.type === 'rate-limit/requeued') {
      const data = event.data as unknown as RateLimitRequeued
      for (const message of data.messages) waiting.set(message.id, requeues.length)
      requeues.push(data)
    } else if (event.type === 'rate-limit/requeue-canceled') {
      for (const id of (event.data as unknown as RateLimitRequeueCanceled).ids) waiting.delete(id)
    } else if (event.type === 'agent/inbox/spliced' && waiting.size > 0) {
      for (const message of (event.data as { inserted: readonly UserMessage[] }).inserted) {
        if (!waiting.delete(message.id)) continue
        putBack.push(message.id)
        unwoken.push(message.id)
      }
    }
  }
  const left = new Map<number, UserMessage[]>()
  for (const [id, index] of waiting) {
    const message = requeues[index]!.messages.find((candidate) => candidate.id === id)!
    left.get(index)?.push(message) ?? left.set(index, [message])
  }
  const outstanding = [...left].sort(([a], [b]) => a - b).map(([index, messages]) => ({ ...requeues[index]!, messages }))
  return { putBack, outstanding, unwoken }
}
