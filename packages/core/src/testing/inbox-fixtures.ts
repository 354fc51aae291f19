// Test-only inbox fixtures (excluded from the build): an Inbox on a bare Session, with its notifications recorded.
import { Inbox } from '../inbox/inbox.js'
import type { InboxNotifications, InboxSplice } from '../inbox/types.js'
import type { SessionEvent } from '../session/events.js'
import type { UserMessage } from '../session/messages.js'
import { Session } from '../session/session.js'
import { msg } from './harness.js'

/** Notifications that log `inserted <id> <target>`, `discarded <id> <target>` and `claimed <id> turn=<n>`. */
export function recorder() {
  const log: string[] = []
  const notifications: InboxNotifications = {
    inserted: (m, target) => log.push(`inserted ${m.id} ${target}`),
    discarded: (m, target) => log.push(`discarded ${m.id} ${target}`),
    claimed: (m, turn) => log.push(`claimed ${m.id} turn=${turn}`),
  }
  return { log, notifications }
}

/** An inbox over a session of these events (clock fixed at 0), its notifications recorded in `log`. */
export function bare(events: SessionEvent[] = [], header: { seedLength?: number } = {}) {
  const session = new Session({ id: 's', version: 1, createdAt: 0, ...header }, events, { now: () => 0 })
  const { log, notifications } = recorder()
  const inbox = new Inbox(session, notifications)
  return { session, inbox, log }
}

/** An inbox whose queues hold the given ids (set up by pure insertions; the notifications are reset). */
export function seeded(nextTurn: string[], nextStep: string[] = []) {
  const setup = bare()
  if (nextTurn.length > 0) setup.inbox.splice('next-turn', Infinity, 0, nextTurn.map((id) => msg(id)))
  if (nextStep.length > 0) setup.inbox.splice('next-step', Infinity, 0, nextStep.map((id) => msg(id)))
  setup.log.length = 0
  return setup
}

/** The ids of these messages, in order. */
export const ids = (messages: readonly UserMessage[]) => messages.map((m) => m.id)

/** Both queues as lists of ids. */
export const queues = (inbox: Inbox) => ({ 'next-turn': ids(inbox.nextTurn), 'next-step': ids(inbox.nextStep) })

/** The data of the last event, read as a splice. */
export const lastSplice = (session: Session) => session.last!.data as InboxSplice
