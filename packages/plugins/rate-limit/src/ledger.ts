import type { SessionEvent, UserMessage } from '@bosun/core'
import type { KeyOf } from './source-key.js'
import { prune } from './window.js'

/** What a limit counts: turns (first steps) or steps. */
export type Counted = 'turns' | 'steps'

/** A step that has a `step/start` whose `user/message` events are still being read. */
interface OpenStep {
  step: number
  time: number
  keys: string[]
}

/**
 * The admitted turns and steps of the last window, per key, folded from the session log — the
 * only source of truth, so a restart or a resume rebuilds exactly what was counted before.
 *
 * One fold, two feeds: {@link Ledger.fromLog} replays the tail of the stored log at setup, and
 * {@link Ledger.observe} is the `session/event` observer that keeps it current.
 *
 * A step counts at its `step/start` (its `time`), under the key of its messages: a turn under the
 * key of the last message of its first step (the next-turn message that opened it), and every
 * step of a turn under the key of its turn.
 */
export class Ledger {
  readonly #times: Record<Counted, Map<string, number[]>> = { turns: new Map(), steps: new Map() }
  #open: OpenStep | undefined
  #turnKey: string | undefined

  constructor(
    private readonly keyOf: KeyOf,
    private readonly windowMs: number,
  ) {}

  /**
   * Builds the ledger from the stored log, reading only its tail: the events of the last window,
   * from the start of the turn that was running at the window's edge (so that its later steps
   * know their turn's key). Assumes event times do not go backwards.
   */
  static fromLog(events: readonly SessionEvent[], now: number, keyOf: KeyOf, windowMs: number): Ledger {
    const ledger = new Ledger(keyOf, windowMs)
    let start = events.length
    while (start > 0 && events[start - 1]!.time > now - windowMs) start--
    if (start < events.length) {
      while (start > 0 && events[start]!.type !== 'turn/start') start--
    }
    for (let i = start; i < events.length; i++) ledger.observe(events[i]!)
    ledger.#close()
    return ledger
  }

  /** Feeds one event, in log order. */
  observe(event: SessionEvent): void {
    if (this.#open && event.type !== 'user/message') this.#close()
    switch (event.type) {
      case 'turn/start':
        this.#turnKey = undefined
        break
      case 'step/start':
        this.#open = { step: (event.data as { step: number }).step, time: event.time, keys: [] }
        break
      case 'user/message':
        this.#open?.keys.push(this.keyOf((event.data as UserMessage).source))
        break
    }
  }

  /** The key the next step of the running turn is counted under (after its first step). */
  get turnKey(): string | undefined {
    return this.#turnKey
  }

  /** The times counted under `key`, ascending, pruned to the window ending at `now`. */
  times(counted: Counted, key: string, now: number): readonly number[] {
    const map = this.#times[counted]
    const times = map.get(key)
    if (!times) return []
    prune(times, now, this.windowMs)
    if (times.length === 0) map.delete(key)
    return times
  }

  #close(): void {
    const open = this.#open
    if (!open) return
    this.#open = undefined
    const own = open.keys.at(-1)
    if (open.step === 1) {
      this.#turnKey = own ?? this.keyOf(undefined)
      this.#count('turns', this.#turnKey, open.time)
    }
    this.#count('steps', this.#turnKey ?? own ?? this.keyOf(undefined), open.time)
  }

  #count(counted: Counted, key: string, time: number): void {
    const map = this.#times[counted]
    let times = map.get(key)
    if (!times) map.set(key, (times = []))
    times.push(time)
    prune(times, time, this.windowMs)
  }
}

/** The key a step about to run is counted under: its turn's, or for a first step its own. */
export function stepKey(ledger: Ledger, keyOf: KeyOf, step: number, messages: readonly UserMessage[]): string {
  if (step > 1 && ledger.turnKey !== undefined) return ledger.turnKey
  return keyOf(messages.at(-1)?.source)
}
