/** Small pure readings of the view that more than one component needs. */
import type { SessionView, StepView, TurnView } from './view.js'
import type { TurnEndReason, Usage } from './wire.js'

/**
 * The abort reason of a host going away (`SHUTDOWN_ABORT_REASON` in `@bosun/core`, written by a
 * host's `close()`): a value the page repeats, as it loads no core code.
 */
export const SHUTDOWN_ABORT_REASON = 'shutdown'

/**
 * The queue is paused when the agent parked it: the session is idle, input waits, and the last
 * turn ended in a way after which the driver does not open the next turn (core's rule, in
 * `store/repair.ts`): a Stop (`aborted`), or an `error` that a hook, the system prompt or the store
 * threw (no `model: true`: a plugin's pre-step check failed, say) — such input waits for a wake,
 * which Resume sends. After any other end the driver opens the next turn, or, if its host went
 * away first, the queue runs once the session resumes ({@link queueRunsOnResume}).
 */
export function isQueuePaused(view: SessionView): boolean {
  if (!hasQueued(view)) return false
  const turn = lastTurn(view)
  return turn !== null && parksQueue(turn.reason)
}

/**
 * Input pending at the last turn's end is owed its turns, yet none started: the turn ended in a way
 * the driver runs on from (`completed`, `blocked`, `max-tokens`, `interrupted`, a failed model
 * call — every end {@link isQueuePaused} does not park at), or was aborted by its host going away
 * (a deploy, `bosun serve` stopped while it ran: not a user's Stop), and the host went away before
 * the next turn — a turn that ended in a stop's grace, where no other starts. Core's recovery owes
 * that input its turns (`agent.recovery.waiting`, `store/repair.ts`) and the host that opens the
 * session next runs it — on a message, a queue change or a wake; not on a stream, which reads a
 * JSONL or PostgreSQL session without opening it. Only input queued before that end and none
 * since: a splice after it came through a request that opened the session, which ran the queue if
 * it was owed (what stays then is parked, {@link isQueueWaiting}). On a host that stays, the next
 * turn starts right after the end.
 */
export function queueRunsOnResume(view: SessionView): boolean {
  if (!hasQueued(view)) return false
  const turn = lastTurn(view)
  return turn !== null && turn.endSeq !== null && !parksQueue(turn.reason) && view.queuedSeq < turn.endSeq
}

/**
 * Input waits with nothing to run it, other than a paused queue ({@link isQueuePaused}) or one a
 * host that went away owes its turns ({@link queueRunsOnResume}): the session is idle, input is queued, and the host
 * said it was idle at or after the splice that queued the last of it — so no turn is about to
 * start for it (a waking send turns the agent `running` in the same call that queues it). What a
 * recovery parks (a subagent's settlement after its parent's host died; seed 003: resuming runs
 * nothing by itself) or an `inject` leaves: it runs with the next message, or now with a wake.
 */
export function isQueueWaiting(view: SessionView): boolean {
  if (!hasQueued(view)) return false
  return view.statusSeq >= view.queuedSeq && !isQueuePaused(view) && !queueRunsOnResume(view)
}

function hasQueued(view: SessionView): boolean {
  return view.status === 'idle' && view.queues['next-turn'].length + view.queues['next-step'].length > 0
}

function lastTurn(view: SessionView): TurnView | null {
  for (let index = view.items.length - 1; index >= 0; index -= 1) {
    const item = view.items.get(index)!
    if (item.kind === 'turn') return item
  }
  return null
}

/** Whether the driver stops after a turn that ended so, leaving pending input parked until a wake. */
function parksQueue(reason: TurnEndReason | null): boolean {
  return (reason?.kind === 'aborted' && !isShutdown(reason)) || (reason?.kind === 'error' && reason.model !== true)
}

function isShutdown(reason: TurnEndReason | null): boolean {
  return reason?.kind === 'aborted' && reason.reason === SHUTDOWN_ABORT_REASON
}

export function reasonLabel(reason: TurnEndReason | null): string {
  if (reason === null) return 'running'
  switch (reason.kind) {
    case 'blocked':
      return `blocked by ${reason.by}`
    case 'error':
      return `error: ${reason.error.code}`
    case 'aborted':
      return isShutdown(reason) ? 'aborted: host shut down' : 'aborted'
    default:
      return reason.kind
  }
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}

export function formatUsage(usage: Usage | null): string | null {
  if (usage === null) return null
  const parts = [
    usage.inputTokens === undefined ? null : `${usage.inputTokens} in`,
    usage.outputTokens === undefined ? null : `${usage.outputTokens} out`,
    usage.reasoningTokens === undefined ? null : `${usage.reasoningTokens} reasoning`,
    usage.cachedInputTokens === undefined ? null : `${usage.cachedInputTokens} cached`,
  ].filter((part) => part !== null)
  return parts.length === 0 ? null : `${parts.join(' / ')} tokens`
}

export function stepDuration(step: StepView): number | null {
  return step.endTime === null ? null : step.endTime - step.startTime
}

/** The first line of an answer, cut to `max` characters: what a card shows. */
export function answerPreview(answer: string, max = 120): string {
  const line = answer.trim().split('\n', 1)[0] ?? ''
  return line.length > max ? `${line.slice(0, max)}…` : line
}

/** "just now", "2 min ago", "3 h ago", "5 days ago": how long ago `then` was, at `now` (epoch ms). */
export function relativeTime(then: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - then) / 1000))
  if (seconds < 45) return 'just now'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  const days = Math.round(hours / 24)
  return days === 1 ? 'yesterday' : `${days} days ago`
}
