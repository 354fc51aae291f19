/**
 * The same words sent the other way (a follow-up whose answer was lost, sent again with Steer, or
 * the reverse) go under a new id: the host refuses an id sent again with another delivery. Under a
 * new id the host would take them as a message of their own — if it had admitted the first try,
 * the same words would run twice (once as the steer, once as the next turn). So the page asks the
 * host where the first try's id went (`GET /v1/sessions/:id/messages/:messageId`, a fold of the
 * log) before sending: admitted and still queued or taken by a turn, nothing is sent and the page
 * says so — and so while it waits in a cluster host's mailbox for the session's owner (`pending`:
 * the owner will admit it); never admitted (404 `message-not-found`), its mailbox entry refused by
 * the owner (the lookup answers that refusal, a 4xx), or since removed or rejected, the words go.
 */
import { HostClientError, type HostClient, type MessageStatus, type PendingMessageStatus } from '@bosun/host/client'

/** An unsent entry with the same words, sent before the other way. */
export interface SentBefore {
  readonly clientMessageId: string
  readonly delivery: 'followup' | 'steer'
}

/** The first try's status when the host admitted it (or a cluster host holds it for the owner) and it is still queued or taken by a turn; null when the words may go. */
export async function admittedBefore(client: HostClient, session: string, before: SentBefore): Promise<MessageStatus | PendingMessageStatus | null> {
  try {
    const status = await client.messageStatus(session, before.clientMessageId)
    // Removed from the queue, or refused by a plugin: the user sees that in the conversation, and sending again is theirs to choose.
    return status.state === 'queued' || status.state === 'claimed' || status.state === 'pending' ? status : null
  } catch (error) {
    // Never admitted, or its mailbox entry refused by the owner (the lookup answers with that
    // refusal): nothing runs the first try. A refused lookup itself (401, 403) says nothing of it.
    if (error instanceof HostClientError && (error.code === 'message-not-found' || (error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403))) return null
    throw error
  }
}

/** The notice: not sent, how it went first, where it is, and — a queued follow-up steered again — what to use instead. */
export function sentBeforeNotice(before: SentBefore, status: MessageStatus | PendingMessageStatus, delivery: 'followup' | 'steer'): string {
  const first = `Not sent: this message was already sent as a ${before.delivery === 'steer' ? 'steer' : 'follow-up'} (its answer never reached the page)`
  if (status.state === 'pending') return `${first}; the host it reached is passing it to the host that runs this session, which will queue it.`
  if (status.state !== 'queued') return `${first}, and a turn has taken it.`
  if (status.lane === 'next-step') return `${first}; it is waiting to join the running turn.`
  const steer = delivery === 'steer' ? ' To have the running turn take it, use Promote to steer on it there rather than sending it twice.' : ''
  return `${first}, and it is in the queue.${steer}`
}
