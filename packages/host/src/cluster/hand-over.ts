import { BosunError, type JsonValue } from '@bosun/core'
import { logHost } from '../host-log.js'
import type { RelayedRequest } from './relay.js'
import type { ClusterStore } from './store.js'
import type { UnwrittenMessage } from '../unwritten.js'

/**
 * Hands the messages a host accepted for a session it lost, and may never have written, to the
 * session's next owner: each is posted to the session's mailbox as the send it was — the relayed
 * `POST …/messages` a host that does not own the session posts — under its own id.
 *
 * Why: a plain send is answered `202` once its splice is in the agent's log in memory (`durable:
 * false`); the store writes it behind. When another host took the session over meanwhile, that
 * write is fenced, the session dropped — and the message was gone, though the client was told it
 * was accepted. Posted to the mailbox, the owner admits it (its NOTIFY wakes the owner, or the first
 * host to take the session); exactly once: the mailbox keeps one entry per id (a client's retry
 * under the same id, on any host, is answered that entry's answer), and an owner whose log has the
 * id already (the write was committed after all) answers it as a duplicate, admitting nothing.
 * Each message is the version the old owner had last (an edit included; a canceled one is not
 * handed over: unwritten.ts), sent to the lane it was last in.
 * A post that fails (the database is unreachable) is logged, naming each message: those messages
 * are lost, as a host's crash loses what it had not written (docs/host.md, "Accepted messages").
 *
 * A session that was removed (the lease was lost because the session is gone: the fenced batch's
 * STALE_WRITER says `details.removed`) has no next owner: the store refuses mail for a session it
 * does not hold (`SESSION_NOT_FOUND`, race-free against the removal), so its messages go with it —
 * posted, they stayed pending for ever and a session made later under the id ran them. One line
 * says so, and nothing more is posted. Their senders' lookups answer 404 `session-not-found`.
 */
export async function handOverMessages(store: ClusterStore, id: string, messages: readonly UnwrittenMessage[]): Promise<void> {
  for (const [index, { message, lane }] of messages.entries()) {
    const delivery = deliveryOf(message, lane)
    const relayed: RelayedRequest = {
      method: 'POST',
      path: `/v1/sessions/${encodeURIComponent(id)}/messages?wait=durable`,
      body: { clientMessageId: message.id, content: message.content as unknown as JsonValue, delivery },
      handOver: true,
    }
    try {
      await store.mailbox.post(id, { messageId: message.id, kind: 'message', body: relayed as unknown as JsonValue })
    } catch (error) {
      // The code of @bosun/plugin-store-postgres's refusal (the store this host has no import of).
      if (BosunError.is(error, 'SESSION_NOT_FOUND')) return logHost(removedLine(id, messages.slice(index)))
      logHost(`[bosun host] message ${JSON.stringify(message.id)} of session ${id}, accepted here before another host took the session over and not written, could not be handed to its new owner: it is lost (its sender's lookup answers message-not-found; send it again):`, error)
    }
  }
}

/** What the log says of messages a removed session takes with it. */
function removedLine(id: string, messages: readonly UnwrittenMessage[]): string {
  const ids = messages.map(({ message }) => JSON.stringify(message.id)).join(', ')
  const count = messages.length === 1 ? `message ${ids}` : `messages ${ids}`
  return `[bosun host] session ${id} was removed while this host had it open: ${count}, accepted here and not written, went with it (not handed over; its sender's lookup answers session-not-found).`
}

/** How the message is sent again: as it was sent, unless a promote moved a follow-up to `next-step` (then a steer). */
function deliveryOf(message: UnwrittenMessage['message'], lane: UnwrittenMessage['lane']): string {
  const sent = (message.source as { delivery?: string } | undefined)?.delivery
  if (lane === 'next-turn') return 'followup'
  return sent === 'steer' || sent === 'inject' ? sent : 'steer'
}
