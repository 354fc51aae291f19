import type { JsonValue } from '@bosun/core'
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
 */
export async function handOverMessages(store: ClusterStore, id: string, messages: readonly UnwrittenMessage[]): Promise<void> {
  for (const { message, lane } of messages) {
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
      logHost(`[bosun host] message ${JSON.stringify(message.id)} of session ${id}, accepted here before another host took the session over and not written, could not be handed to its new owner: it is lost (its sender's lookup answers message-not-found; send it again):`, error)
    }
  }
}

/** How the message is sent again: as it was sent, unless a promote moved a follow-up to `next-step` (then a steer). */
function deliveryOf(message: UnwrittenMessage['message'], lane: UnwrittenMessage['lane']): string {
  const sent = (message.source as { delivery?: string } | undefined)?.delivery
  if (lane === 'next-turn') return 'followup'
  return sent === 'steer' || sent === 'inject' ? sent : 'steer'
}
