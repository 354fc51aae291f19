import { BosunError, createUserMessage } from '@bosun/core'
import { HostError } from './errors.js'
import { findAdmission } from './log.js'
import { admittedMessage, clientMessageIdReused, reuseDifference } from './message-reuse.js'
import type { PostMessageBody } from './schemas.js'
import type { LiveSession } from './sessions.js'

export interface AdmissionReceipt {
  accepted: true
  messageId: string
  duplicate: boolean
  lane: 'next-turn' | 'next-step'
  delivery: 'followup' | 'steer' | 'inject'
  rerouted?: true
  seq: number
  /** Index in its lane while queued; null once a turn claimed it. */
  position: number | null
  status: string
  durable: boolean
}

/**
 * Admits a message (idempotent by clientMessageId: the id is in the log) and answers its receipt.
 * An id admitted with other content or delivery is refused (`client-message-id-reused`), unless
 * `handOver`: a cluster's hand-over sends the message as last edited, and an owner whose log has
 * it already admits nothing (cluster/hand-over.ts).
 */
export async function admit(live: LiveSession, input: PostMessageBody, waitDurable: boolean, options: { handOver?: boolean } = {}): Promise<AdmissionReceipt> {
  const { agent } = live
  const messageId = input.clientMessageId
  const delivery = input.delivery ?? 'followup'
  let duplicate = live.admitted.has(messageId)
  if (!duplicate) {
    const message = createUserMessage(input.content as never, { id: messageId, source: { kind: 'user', delivery } })
    try {
      if (delivery === 'followup') agent.followup(message)
      else if (delivery === 'steer') agent.steer(message)
      else agent.inject(message)
    } catch (error) {
      if (!(error instanceof BosunError && error.code === 'DUPLICATE_MESSAGE_ID')) throw error
      duplicate = true
    }
  }
  const seq = live.admitted.get(messageId)
  const admission = seq === undefined ? undefined : findAdmission(agent.session.events.slice(seq, seq + 1), messageId)
  if (seq === undefined || !admission) {
    // Admitted by a path this host does not index (e.g. a seed): report it as a duplicate it cannot place.
    throw new HostError('invalid-request', `Message id "${messageId}" is already used in this session: choose another clientMessageId.`, { path: '/clientMessageId' })
  }
  const admitted = admittedMessage(admission)
  const originalDelivery = admitted.delivery
  // Compared with the splice that admitted it, not its current (edited) content.
  const differs = duplicate && options.handOver !== true ? reuseDifference(admitted, { content: input.content, delivery }) : undefined
  if (differs !== undefined) throw clientMessageIdReused(messageId, differs)
  if (waitDurable) {
    await agent.session.flush()
    live.durableSeq = Math.max(live.durableSeq, seq)
  }
  const found = agent.inbox.find(messageId)
  return {
    accepted: true,
    messageId,
    duplicate,
    lane: admission.lane,
    delivery: originalDelivery,
    ...(originalDelivery !== 'followup' && admission.lane === 'next-turn' ? { rerouted: true as const } : {}),
    seq,
    position: found ? found.index : null,
    status: agent.status,
    // The host's own waits, or any flush since — the loop flushes before each model request.
    durable: seq <= live.durableSeq || seq < agent.session.durableLength,
  }
}
