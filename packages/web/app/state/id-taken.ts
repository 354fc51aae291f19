/**
 * A send the host refused as `422 client-message-id-reused`: its `clientMessageId` went before
 * (a try whose answer never reached the page) with other words or another delivery, and the host
 * took that message. The id is spent — sent again under it the message is refused again — so the
 * page forgets it and says what happened instead of offering a retry that cannot work.
 */
import { HostClientError } from '@bosun/host/client'

/** What differed from the message the host took under the id (the error's `details.differs`). */
export interface IdTaken {
  /** The words differ: the ones sent are in no message, so they go back to the Message box. */
  readonly content: boolean
}

/** The refusal read as an `IdTaken`, or null for any other error. */
export function idTaken(error: unknown): IdTaken | null {
  if (!(error instanceof HostClientError && error.code === 'client-message-id-reused')) return null
  const differs = (error.details as { differs?: unknown } | undefined)?.differs
  return { content: Array.isArray(differs) && differs.includes('content') }
}

/** The notice: not sent, where the message taken first is, and what to do with the words. */
export function idTakenNotice({ content }: IdTaken): string {
  const first = "Not sent: the host had already taken a message under this one's id when it was first sent (its answer never reached the page); that message is in the conversation or the queue, as it was first sent."
  return content ? `${first} Your words are back in the Message box: send them again to make a new message.` : `${first} Send this again only if you want it twice.`
}
