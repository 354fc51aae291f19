import { BosunError, ErrorCodes, type SessionEvent, type TurnEndReason } from '@bosun/core'
import { logHost } from './host-log.js'
import type { DroppedSession } from './live-session.js'
import type { SessionManager } from './sessions.js'

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/**
 * A store's refusal as the host's log quotes it: its words (the file, the database, the seqs), its
 * trailing period and its advice to its caller cut — "Reopen the session." / "…; reopen the
 * session to continue." is what an API caller does (the error stays so for them), not what the
 * operator reading a host's log does: the host's line says its own next step after it.
 */
export function storeWords(error: Error): string {
  return error.message.replace(/[.;]\s*reopen\b[^.;]*\.?\s*$/i, '').replace(/\.+\s*$/, '')
}

/**
 * What this host did with a session it dropped — nothing open, a borrowed child let go, or its
 * agent stopped — as one sentence of a drop's log line: its turn, its streams here, and the
 * messages clients were told were accepted (202) that no write kept: posted to the session's next
 * owner (a cluster) or lost (no one to give them to). `cluster`: any host of it serves a reconnect.
 */
export function stoppedHere(dropped: DroppedSession | undefined, { cluster = false }: { cluster?: boolean } = {}): string {
  if (dropped === undefined) return 'It was not open here: nothing to stop.'
  const streams = `${plural(dropped.streams, 'stream', 'streams')} of it here ended (a client reconnecting is served from the store${cluster ? ' by any host' : ''})`
  if (dropped.borrowed) return `This host let it go (a subagent's child: its parent here stops it); ${streams}.`
  const turn = dropped.running ? 'its turn under way here is canceled' : 'no turn was under way here'
  return `This host stopped its agent: ${turn}, ${streams}, ${unwritten(dropped)}.`
}

function unwritten({ handedOver, lost }: DroppedSession): string {
  const parts: string[] = []
  const are = (n: number) => (n === 1 ? 'is' : 'are')
  if (handedOver > 0) parts.push(`${plural(handedOver, 'message', 'messages')} accepted here and not yet written ${are(handedOver)} posted to its mailbox for the next owner`)
  if (lost > 0) {
    const them = lost === 1 ? 'a lookup of it answers message-not-found: its sender can send it again' : 'a lookup of each answers message-not-found: their senders can send them again'
    parts.push(`${plural(lost, 'message', 'messages')} accepted here and not yet written ${are(lost)} lost (${them} under the same clientMessageId)`)
  }
  return parts.length === 0 ? 'no accepted message was left unwritten' : parts.join(', ')
}

/**
 * The one line a host logs when it lets a session go because the store refused a write of it as
 * stale (STALE_WRITER: its JSONL file was replaced or appended to, another writer of its database
 * took the seq): which session, that another writer changed its log (the store's words, naming
 * the file or database, never a credential), what this host stopped, and what comes next — the
 * client's retry opens it again from the store; the operator finds the other writer if there
 * should be none. Before, the session was dropped without a line of the host's own. (A cluster's
 * lost lease has its own line, cluster/lease-lost.ts.)
 */
export function staleWriterLine(session: string, error: Error, dropped: DroppedSession | undefined): string {
  return `[bosun host] session "${session}" was let go here: another writer changed its stored log (${storeWords(error)}). ${stoppedHere(dropped)}`
    + ' The next request for it opens it again from the store. If nothing else should write it, find what did'
    + ' (another host or bosun process on the same store, a restore, a sync tool) and stop it: two writers of a session refuse each other\'s writes.'
}

/**
 * Lets go a session whose write the store refused as stale, and logs its line once: the drop that
 * finds it still open logs (a cluster store that reported the lease lost dropped it first, and
 * logged that; a second refusal finds nothing). The next request opens it again from the store.
 */
export function letStaleSessionGo(sessions: SessionManager, id: string, error: Error): void {
  void sessions.drop(id, (dropped) => {
    if (dropped !== undefined) logHost(staleWriterLine(id, error, dropped))
  })
}

/**
 * The store's STALE_WRITER a turn ended with (a `turn/end` with an error reason), as an error: a
 * turn's write refused with no request waiting on it — a plain send's turn flushes before its model
 * request — which left the session open with a writer refused for good, every later send accepted
 * and lost. Undefined for any other event.
 */
export function staleWriterOf(event: SessionEvent): BosunError | undefined {
  if (event.type !== 'turn/end') return undefined
  const reason = (event.data as { reason?: TurnEndReason }).reason
  if (reason?.kind !== 'error' || reason.error.code !== ErrorCodes.STALE_WRITER) return undefined
  const details = reason.error.details
  return new BosunError(ErrorCodes.STALE_WRITER, reason.error.message, typeof details === 'object' && details !== null ? { details: details as Record<string, unknown> } : {})
}
