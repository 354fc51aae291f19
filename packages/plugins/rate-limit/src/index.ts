import { definePlugin, Stage, type PreStepDecision } from '@bosun/core'
import { Ledger, stepKey, type Counted } from './ledger.js'
import { optionsSchema, type OnLimit, type Options } from './options.js'
import { outstandingRequeues, Requeue, type RateLimitRequeueCanceled, type RateLimitRequeued } from './requeue.js'
import { sleep } from './sleep.js'
import { keyFunction } from './source-key.js'
import { waitTime, type Limit } from './window.js'

export { optionsSchema } from './options.js'
export type { OnLimit, Options } from './options.js'
export { waitTime, type Limit } from './window.js'
export type { RateLimitRequeueCanceled, RateLimitRequeued } from './requeue.js'

/** The `metadata` of a rejection (and of `turn/end {kind: 'blocked'}`). */
export interface RateLimitMetadata {
  /** The number of turns or steps allowed per window. */
  limit: number
  windowMs: number
  /** When the limit allows this key again (from the rejection). */
  retryAfterMs: number
  /** Which limit was hit. */
  counts: Counted
  burst: number
  /** Whom the limit counts: `session`, or a source key such as `userId:ada`. */
  key: string
  onLimit: OnLimit
}

/** The data of `rate-limit/delayed`, written when a step starts waiting (`onLimit: 'delay'`). */
export interface RateLimitDelayed {
  turn: number
  step: number
  key: string
  counts: Counted
  limit: number
  windowMs: number
  /** The wait expected when it started. */
  delayMs: number
}

declare module '@bosun/core' {
  interface BosunEventMap {
    'rate-limit/delayed': RateLimitDelayed
    'rate-limit/requeued': RateLimitRequeued
    'rate-limit/requeue-canceled': RateLimitRequeueCanceled
  }
}

interface Verdict extends Limit {
  /** When the verdict was reached (the plugin's clock): `at + retryAfterMs` is when the step fits. */
  at: number
  counts: Counted
  retryAfterMs: number
}

/**
 * rate-limit: limits how many turns and steps run per window (a minute by default), per session
 * or per source (user). A step over the limit is rejected (the turn ends `blocked` with
 * {@link RateLimitMetadata}), delayed until it fits, or rejected and requeued.
 *
 * What was admitted is counted from the session log (`step/start` events and their `time`), so
 * a restart or a resume cannot reset a limit: setup folds the tail of the log, and a
 * `session/event` observer keeps the count current.
 *
 * It taps `agent/pre-step` at `Stage.late`, so it only counts (and delays) input that every
 * other policy admitted: a content filter's rejection never waits for a slot.
 *
 * @example
 * // bosun.config.ts
 * export default defineConfig({ plugins: [['rate-limit', { turnsPerMinute: 20 }]] })
 */
export default definePlugin<Options>({
  name: 'rate-limit',
  schema: optionsSchema,
  events: {
    'rate-limit/delayed': { ignorable: true },
    'rate-limit/requeued': { ignorable: true },
    'rate-limit/requeue-canceled': { ignorable: true },
  },
  setup({ hooks, name, session, inbox, agent, onClose, onReady, now: clock }, options) {
    const { per = 'session', onLimit = 'reject', windowMs = 60_000, sourceKey = 'userId' } = options
    const limits: Partial<Record<Counted, Limit>> = {}
    if (options.turnsPerMinute) limits.turns = limitOf(options.turnsPerMinute, windowMs, options.burst)
    if (options.stepsPerMinute) limits.steps = limitOf(options.stepsPerMinute, windowMs, options.burst)
    const keyOf = keyFunction(per, sourceKey)
    const ledger = Ledger.fromLog(session.events, clock(), keyOf, windowMs)
    hooks.event.tap(name, (event) => ledger.observe(event))
    const requeue = new Requeue(inbox, session, () => agent.wake(), clock)
    onClose(() => requeue.dispose())
    if (onLimit === 'requeue') {
      const logged = outstandingRequeues(session.events, session.header.seedLength ?? 0)
      // What a previous process logged as requeued and did not put back (it stopped first).
      requeue.restore(logged)
      // What it put back and stopped before the woken turn started: the wake is owed, once the
      // agent is whole (a turn started here would run before later plugins tapped their hooks).
      const { unwoken } = logged
      if (unwoken.length > 0) {
        onReady(() => {
          if (unwoken.some((id) => inbox.find(id) !== undefined)) agent.wake()
        })
      }
    }
    // `cancel()` drops pending input: requeued messages waiting for their time are pending input.
    hooks.canceled.tap(name, () => {
      const ids = requeue.cancel()
      if (ids.length > 0) session.append('rate-limit/requeue-canceled', { ids })
    })

    /** The limit that keeps this step waiting longest, or undefined when it may run now. */
    const verdict = (key: string, step: number): Verdict | undefined => {
      const now = clock()
      let worst: Verdict | undefined
      for (const counts of step === 1 ? (['turns', 'steps'] as const) : (['steps'] as const)) {
        const limit = limits[counts]
        if (!limit) continue
        const retryAfterMs = waitTime(ledger.times(counts, key, now), now, limit)
        if (retryAfterMs > 0 && retryAfterMs > (worst?.retryAfterMs ?? 0)) worst = { ...limit, counts, retryAfterMs, at: now }
      }
      return worst
    }

    hooks.preStep.tapPromise({ name, stage: Stage.late }, async (decision, { turn, step, signal, claimed }): Promise<PreStepDecision> => {
      // An aborted or canceled turn ends `aborted` as it would without this plugin: nothing to count
      // or requeue (a cancel while an earlier tap waited must not be undone by a requeue).
      if (decision.kind !== 'enter' || signal.aborted) return decision
      const key = stepKey(ledger, keyOf, step, decision.messages)
      let over = verdict(key, step)
      if (!over) return decision
      // Requeueing a later step would drop the tool results it continues from: it waits instead.
      const action = onLimit === 'requeue' && step > 1 ? 'delay' : onLimit
      if (action === 'delay') {
        const { counts, limit, windowMs, retryAfterMs: delayMs } = over
        session.append('rate-limit/delayed', { turn, step, key, counts, limit, windowMs, delayMs })
        // A sleep ends after a timer's longest wait at the most (a window of a month): read the verdict again.
        while (over) {
          await sleep(over.retryAfterMs, signal)
          over = verdict(key, step)
        }
        return decision
      }
      // Due at an instant of the verdict's clock, not `retryAfterMs` from whenever this line runs:
      // messages rejected by the same full window then fall due together and go back in order.
      if (action === 'requeue') {
        const dueAt = over.at + over.retryAfterMs
        // Scheduled, then logged before the turn ends, so that a process stopping before the timer
        // leaves the requeue to the next one — and a cancel() from an observer of this very event
        // finds it pending, drops it and logs that it did.
        requeue.schedule(claimed, dueAt)
        session.append('rate-limit/requeued', { turn, dueAt, messages: claimed })
      }
      const metadata: RateLimitMetadata = {
        limit: over.limit, windowMs: over.windowMs, retryAfterMs: over.retryAfterMs,
        counts: over.counts, burst: over.burst, key, onLimit,
      }
      return { kind: 'reject', metadata: { ...metadata } }
    })
  },
})

function limitOf(limit: number, windowMs: number, burst = limit): Limit {
  return { limit, windowMs, burst: Math.min(burst, limit) }
}
