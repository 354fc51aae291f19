import { isDeepStrictEqual } from 'node:util'
import { HostError } from './errors.js'
import type { findAdmission } from './log.js'

/** A send as `POST …/messages` takes it: what a repeated `clientMessageId` is compared on. */
export interface SentMessage {
  content: unknown
  /** Absent: a follow-up. */
  delivery?: unknown
}

/**
 * What a splice admitted under an id, as it was sent: its content, and its delivery from the
 * message's source (a message from before sources named one: by its lane).
 */
export function admittedMessage(admission: NonNullable<ReturnType<typeof findAdmission>>): { content: unknown; delivery: 'followup' | 'steer' | 'inject' } {
  const as = (admission.message.source as { delivery?: string } | undefined)?.delivery
  const delivery = as === 'followup' || as === 'steer' || as === 'inject' ? as : admission.lane === 'next-turn' ? 'followup' : 'steer'
  return { content: admission.message.content, delivery }
}

/** Content as the log keeps it: a string is one text block (createUserMessage). */
function blocksOf(content: unknown): unknown {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content
}

/**
 * What a send under a `clientMessageId` already used changes from the message admitted under it
 * (`['content']`, `['delivery']`, both), or undefined when it is that message sent again: a retry,
 * answered the first admission's receipt. Compared with what was admitted (the log's first splice
 * of the id, a cluster's mailbox entry), never the message's current, edited, content: a retry
 * after a PATCH is still a retry.
 */
export function reuseDifference(admitted: SentMessage, sent: SentMessage): ('content' | 'delivery')[] | undefined {
  const differs: ('content' | 'delivery')[] = []
  if (!isDeepStrictEqual(blocksOf(admitted.content), blocksOf(sent.content))) differs.push('content')
  if ((admitted.delivery ?? 'followup') !== (sent.delivery ?? 'followup')) differs.push('delivery')
  return differs.length === 0 ? undefined : differs
}

/**
 * `422 client-message-id-reused`: a new message under an id the session has admitted another
 * message under. Answering it the first message's receipt (`duplicate: true`) would drop the new
 * text without a word; the id names one message, so the sender is told to pick a new one. The
 * message names what differs, never the text itself.
 */
export function clientMessageIdReused(messageId: string, differs: readonly ('content' | 'delivery')[]): HostError {
  const what = differs.join(' and ')
  return new HostError(
    'client-message-id-reused',
    `clientMessageId ${JSON.stringify(messageId)} was already used in this session for a message with another ${what}: nothing was admitted. A retry must send the message as it was first sent (it is answered its first receipt, duplicate: true); a new message needs a new clientMessageId.`,
    { path: '/clientMessageId', messageId, differs: [...differs] },
  )
}
