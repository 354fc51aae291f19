import type { DroppedSession } from '../live-session.js'
import { stoppedHere, storeWords } from '../session-dropped.js'

/** What a cluster store's lease-lost error says (`@bosun/plugin-store-postgres`'s STALE_WRITER `details`), where it says it. */
interface LostDetails {
  /** The epoch this host held. */
  epoch?: unknown
  /** The owner holding the lease now, and its epoch. */
  heldBy?: unknown
  heldEpoch?: unknown
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/**
 * The one line a host logs when it loses a session's lease (another host took it over, or a
 * write of it was fenced): which session, why — to whom and at which epoch when the store says —
 * and what happens next: what this host stopped and handed over, and who runs the session now.
 * Before, the session was dropped without a word, and an operator saw a session stop on one host
 * with nothing saying why. Names lease owners (as the store's own messages do), never a URL. When
 * the store cannot say who holds it (the renewal could not read the holder, the row was gone, or
 * the takeover committed while the fenced batch waited), its words are quoted without their advice
 * to an API caller ("reopen the session to continue"): the line's last sentence is the host's own
 * next step.
 */
export function leaseLostLine(session: string, error: Error, dropped: DroppedSession | undefined, owner?: string): string {
  const details = ((error as { details?: unknown }).details ?? {}) as LostDetails
  const holder = text(details.heldBy)
  const heldEpoch = text(details.heldEpoch)
  const ours = text(details.epoch)
  const why = holder === undefined
    ? `the store refused it (${storeWords(error)})`
    : `"${holder}" took it over (epoch ${heldEpoch ?? 'unknown'}${ours === undefined ? '' : `; this host held epoch ${ours}`})`
  const next = holder === undefined
    ? 'The next host to open it runs it (a request, its mail, or failover once the lease has run out).'
    : `"${holder}" runs it now.`
  const line = `[bosun host] session "${session}" lost its lease here: ${why}. ${stoppedHere(dropped, { cluster: true })} ${next}`
  return holder !== undefined && holder === owner ? `${line} ${sharedOwner(holder)}` : line
}

/**
 * Said when the lease went to this host's own owner name: another host or bosun process on the
 * store runs under the same `owner` (a config shared by every host that sets it). A store takes
 * over any lease its owner name holds, and no host sees the other's as held elsewhere, so each
 * took the other's sessions at every request, cutting their turns — with a line that named the
 * "new owner" as this host itself.
 */
function sharedOwner(owner: string): string {
  return `But "${owner}" is this host's own lease owner name: another host (or bosun process) runs on this store under the same "owner", and each takes over the other's sessions at every request, cutting their turns. `
    + 'Give each its own: leave "owner" out of a config the hosts share (the default, <hostname>:<pid>:<random>, is unique), or set it per host.'
}
