import { SHUTDOWN_ABORT_REASON } from '@bosun/core'
import type { LiveSession } from './live-session.js'

/**
 * Closes one live session's agent, after up to `graceMs` for its running turn (the host's close).
 * During the grace no new turn starts: input queued behind the running turn stays queued,
 * unclaimed, for the next host (a claimed message belongs to its turn — seed 003 — so a turn
 * started in the grace would be aborted at its end with its input consumed). A close that fails
 * — its log could not be flushed (a store outage) — is kept in `unclosed` with its failure, for
 * the next `close()` to try again ({@link closeAgain}). The session's streams end either way: the
 * agent takes no more input.
 */
export async function closeLive(live: LiveSession, graceMs: number, unclosed: Map<LiveSession, unknown>, shutdown = false): Promise<void> {
  try {
    // Borrowed: let go, not closed — its owner (a parent this host may be closing right now) closes it.
    if (live.borrowed) return
    // Also when the agent is idle: what its plugins run beside it (a subagent's background child)
    // gets the grace too (stopAfterTurn resolves at once when nothing runs).
    if (graceMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([live.agent.stopAfterTurn(), new Promise((r) => { timer = setTimeout(r, graceMs) })])
      clearTimeout(timer)
    }
    // The host going away (host.close(): a deploy's SIGTERM), not a user's Stop: the turn it aborts
    // ends `aborted` with reason `shutdown`, and the queue behind it runs when the session is next
    // opened (recovery.waiting). An ACP editor's disconnect closes with reason `closed`: it parks.
    if (shutdown && live.agent.status !== 'idle') live.agent.abort(SHUTDOWN_ABORT_REASON)
    await live.agent.close().catch((error: unknown) => {
      unclosed.set(live, error)
      throw error
    })
  } finally {
    live.closed = true
    for (const listener of [...live.listeners]) listener()
  }
}

/**
 * A session whose close failed, closed again: its agent is closed already (a second
 * `agent.close()` only waits for idle), so its log's close — the flush that failed — is what is
 * tried again. A store whose writer's close is final (the bundled stores release the lock or
 * lease either way, and their error counts the events lost) rejects with the same failure: that
 * was reported by the close that failed, and is not a failure of this one.
 */
export async function closeAgain(live: LiveSession, failure: unknown, unclosed: Map<LiveSession, unknown>): Promise<void> {
  await live.agent.session.close().catch((error: unknown) => {
    if (error === failure) return
    unclosed.set(live, error)
    throw error
  })
}

/**
 * Closes a session the host runs as the host closes, following it through the grace and the close:
 * `detach` lets go of its log only after, so its streams are told of what a turn finishing in the
 * grace (or aborted at its end) logs, and a chat stream sends that turn's end.
 */
export async function closeFollowed(live: LiveSession, graceMs: number, unclosed: Map<LiveSession, unknown>, shutdown: boolean, detach: (live: LiveSession) => void): Promise<void> {
  if (live.idleTimer) clearTimeout(live.idleTimer)
  live.idleTimer = undefined
  try {
    await closeLive(live, graceMs, unclosed, shutdown)
  } finally {
    detach(live)
  }
}
