import { randomUUID } from 'node:crypto'
import { BosunError, ErrorCodes, invalidArgument } from '../errors.js'
import { LOG_FORMAT_VERSION, type Delegation, type SessionEvent, type SessionHeader } from '../session/events.js'
import { assertSessionId } from './session-id.js'
import type { NewSession, Store, StoredSession } from './types.js'

export interface ForkOptions {
  /** The child's id. Default: a new UUID. */
  id?: string
  /**
   * Fork after this turn's `turn/end`. Default: the last turn that has ended — a session whose
   * agent is running (another process may be writing it) forks at the turn before the open one.
   * A turn that has not ended is refused.
   */
  afterTurn?: number
  /** Clock for the child's `createdAt` and its `session/end-seed` marker. */
  now?: () => number
  /** Recorded in the child's header: the fork is a subagent's context (see {@link SessionHeader.delegation}). */
  delegation?: Delegation
}

/**
 * Forks a stored session: a new session whose seed is the parent's prefix up to a completed turn
 * boundary, followed by a `session/end-seed {}` marker; `seedLength` in the child's header counts
 * both, so the child's own history starts right after the marker. The parent's pending inbox is
 * not copied (the child's inbox replays only its own history). Works with any {@link Store}.
 *
 * @example
 * const child = await forkSession(store, 'parent-id', { id: 'experiment-1' })
 * const agent = await createAgent({ model, store, sessionId: child.header.id })
 */
export async function forkSession(store: Store, parentId: string, options: ForkOptions = {}): Promise<StoredSession> {
  const { header, seed } = await forkSeed(store, parentId, options)
  return store.create(header, seed)
}

/**
 * What {@link forkSession} creates — the fork's header and seed — without creating it: for
 * `createAgent`'s `newSession`, which creates a new session only once every plugin setup passed
 * (a subagent's `context: 'fork'` child). Same checks and errors as `forkSession`.
 */
export async function forkSeed(store: Store, parentId: string, options: ForkOptions = {}): Promise<Required<NewSession>> {
  assertSessionId(parentId)
  const id = options.id ?? randomUUID()
  assertSessionId(id)
  if (options.afterTurn !== undefined && (!Number.isSafeInteger(options.afterTurn) || options.afterTurn < 0)) {
    throw invalidArgument(`forkSession(): "afterTurn" must be a non-negative integer, got ${String(options.afterTurn)}.`)
  }
  // Read without taking the parent for writing where the store can: an agent may be writing it.
  const parent = store.read ? await store.read(parentId) : await store.open(parentId)
  if (!parent) throw new BosunError(ErrorCodes.STORE, `Cannot fork session "${parentId}": the ${store.name} store has no such session.`)
  try {
    const cut = forkPoint(parent.events, parentId, options.afterTurn)
    const now = options.now ?? Date.now
    const seed: SessionEvent[] = parent.events.slice(0, cut)
    seed.push(Object.freeze({ seq: cut, time: now(), type: 'session/end-seed', data: Object.freeze({}) }) as SessionEvent)
    const header: SessionHeader = {
      id, version: LOG_FORMAT_VERSION, createdAt: now(), parent: parentId, seedLength: seed.length,
      ...(options.delegation ? { delegation: options.delegation } : {}),
    }
    return { header, seed }
  } finally {
    if ('writer' in parent) await (parent as StoredSession).writer.close()
  }
}

/** Index just after the chosen `turn/end` (default: the last one); refuses a turn that has not ended. */
function forkPoint(events: readonly SessionEvent[], parentId: string, afterTurn: number | undefined): number {
  let cut = 0
  let found = afterTurn === 0
  let lastEnded = 0
  let lastStarted = 0
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (event.type === 'turn/start') lastStarted = (event.data as { turn: number }).turn
    if (event.type === 'turn/end') {
      const turn = (event.data as { turn: number }).turn
      lastEnded = turn
      if (afterTurn === undefined || turn <= afterTurn) cut = i + 1
      if (turn === afterTurn) found = true
    }
  }
  if (afterTurn !== undefined && !found) {
    const why = afterTurn > lastStarted ? 'there is no such turn' : 'that turn has not completed'
    throw invalidArgument(`Cannot fork session "${parentId}" after turn ${afterTurn}: ${why}. ${forkAdvice(afterTurn, lastStarted, lastEnded)}`)
  }
  // Without afterTurn a running session forks at its last ended turn: the open one is not copied.
  if (afterTurn === 0) cut = 0
  return cut
}

/** What to ask for instead of a turn that has not ended: the caller learns the turns there are. */
function forkAdvice(afterTurn: number, lastStarted: number, lastEnded: number): string {
  const state = afterTurn > lastStarted
    ? `The session has ${lastStarted === 0 ? 'no turns yet' : `turns up to ${lastStarted}`}`
    : `Turn ${afterTurn} is still open (running, or left open by a crash until the session is reopened)`
  const ask = lastEnded === 0 ? 'fork after turn 0 (before the first turn)' : `name a turn up to ${lastEnded}, its last ended one, or leave the turn out to fork after it`
  return `${state}: ${ask}.`
}
