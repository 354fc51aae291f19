import type { DroppedSession } from '../live-session.js'

/** What a cluster store's lease-lost error says (`@bosun/plugin-store-postgres`'s STALE_WRITER `details`), where it says it. */
interface LostDetails {
  /** The epoch this host held. */
  epoch?: unknown
  /** The owner holding the lease now, and its epoch. */
  heldBy?: unknown
  heldEpoch?: unknown
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/**
 * The one line a host logs when it loses a session's lease (another host took it over, or a
 * write of it was fenced): which session, why — to whom and at which epoch when the store says —
 * and what happens next: what this host stopped and handed over, and who runs the session now.
 * Before, the session was dropped without a word, and an operator saw a session stop on one host
 * with nothing saying why. Names lease owners (as the store's own messages do), never a URL.
 */
export function leaseLostLine(session: string, error: Error, dropped: DroppedSession | undefined): string {
  const details = ((error as { details?: unknown }).details ?? {}) as LostDetails
  const holder = text(details.heldBy)
  const heldEpoch = text(details.heldEpoch)
  const ours = text(details.epoch)
  const why = holder === undefined
    ? `the store refused it (${error.message.replace(/\.+$/, '')})`
    : `"${holder}" took it over (epoch ${heldEpoch ?? 'unknown'}${ours === undefined ? '' : `; this host held epoch ${ours}`})`
  const next = holder === undefined
    ? 'The next host to open it runs it (a request, its mail, or failover once the lease has run out).'
    : `"${holder}" runs it now.`
  return `[bosun host] session "${session}" lost its lease here: ${why}. ${stopped(dropped)} ${next}`
}

/** What this host did with the session: nothing open, a borrowed child let go, or its agent stopped. */
function stopped(dropped: DroppedSession | undefined): string {
  if (dropped === undefined) return 'It was not open here: nothing to stop.'
  const streams = `${plural(dropped.streams, 'stream', 'streams')} of it here ended (a client reconnecting is served from the store by any host)`
  if (dropped.borrowed) return `This host let it go (a subagent's child: its parent here stops it); ${streams}.`
  const turn = dropped.running ? 'its turn under way here is canceled' : 'no turn was under way here'
  const handed = dropped.handedOver === 0
    ? 'no accepted message was left unwritten'
    : `${plural(dropped.handedOver, 'message', 'messages')} accepted here and not yet written ${dropped.handedOver === 1 ? 'is' : 'are'} posted to its mailbox for the next owner`
  return `This host stopped its agent: ${turn}, ${streams}, ${handed}.`
}
