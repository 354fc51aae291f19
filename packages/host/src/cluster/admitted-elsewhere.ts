import type { InboxSplice } from '@bosun/core'
import { findAdmission } from '../log.js'
import { admittedMessage, reuseDifference, type SentMessage } from '../message-reuse.js'
import type { ClusterMailboxEntry, ClusterStore } from './store.js'

/** What the log admitted under an id, where: what a send under it is compared with and answered. */
export interface LogAdmission {
  content: unknown
  delivery: 'followup' | 'steer' | 'inject'
  seq: number
  lane: 'next-turn' | 'next-step'
}

/**
 * What the log admitted under a mailbox message's id when that admission was not the entry's own
 * run; undefined otherwise. The owner's commit marks delivered the entries of an id its splice
 * inserts that it claimed (store.ts, `mailbox.claim`): an entry posted while the owner's own
 * admission of the id (a send to the owner itself) was not yet committed, and run and refused
 * before that commit, is marked delivered by it. (A store without `claim` marks every entry of the
 * id: then also one that never ran, which no owner answers.) Its body is then a message nothing
 * admitted: a send under the id is compared with the log, not with it. Told apart by the splice at `deliveredSeq` admitting another message
 * than the entry holds; one that admitted the same message is the entry's run, or as good as it.
 * A splice that edits or moves the id is not read as its admission (undefined); a put-back, a
 * pure insertion too, is (the message as last edited), which only an entry posted after the id
 * was admitted and still pending at the put-back's commit would meet.
 */
export async function admittedElsewhere(store: ClusterStore, session: string, entry: ClusterMailboxEntry): Promise<LogAdmission | undefined> {
  if (entry.kind !== 'message' || entry.deliveredSeq === null) return undefined
  // A hand-over holds the message as last edited, not as its client sent it: nothing to tell by.
  const held = entry.body as { body?: SentMessage; handOver?: true } | null
  if (held?.body === undefined || held.handOver === true) return undefined
  const [event] = await store.readEvents(session, entry.deliveredSeq, 1)
  if (event === undefined || event.seq !== entry.deliveredSeq || event.type !== 'agent/inbox/spliced') return undefined
  const splice = event.data as InboxSplice
  const admission = findAdmission([event], entry.messageId)
  if (admission === undefined || (splice.removedCount ?? 0) > 0 || splice.outcome !== undefined) return undefined
  const admitted = admittedMessage(admission)
  if (reuseDifference(admitted, held.body) === undefined) return undefined
  return { ...admitted, seq: admission.seq, lane: admission.lane }
}
