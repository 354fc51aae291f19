/**
 * The shapes of the log events the UI reads, as they arrive over the wire (SPEC §2): core's own
 * event types (and the subagents plugin's), imported as types only — they vanish from the browser
 * bundle, which never loads `@bosun/core` (a Node package). Messages keep the client's wire shape
 * (`WireMessage`: plain JSON, not core's frozen `UserMessage`). Unknown event types are kept for
 * the inspector and otherwise ignored.
 */
import type { AssistantBlock, BosunEventMap, InboxSplice, InboxTarget, ModelChunk, ModelUsage, TurnEndReason } from '@bosun/core'
import type { Queues, WireEvent, WireMessage } from '@bosun/host/client'
import type { SubagentSent, SubagentSettled, SubagentSpawned } from '@bosun/plugin-subagents'

export type { AssistantBlock, Queues, TurnEndReason, WireEvent, WireMessage }

export type Lane = InboxTarget
export type Usage = ModelUsage
export type Chunk = ModelChunk

/** `outcome`: `canceled` (a public removal), `moved` (a promote: removed here, inserted in the other lane); none on a claim. */
export type Splice = Omit<InboxSplice, 'inserted'> & { inserted: WireMessage[] }

/** The data of each event type the fold reads: core's map (and the subagents plugin's events, in a parent's log), with wire messages. */
export type EventData = Omit<BosunEventMap, 'user/message' | 'agent/inbox/spliced'> & {
  'user/message': WireMessage
  'agent/inbox/spliced': Splice
  // Written by @bosun/plugin-subagents in the parent's log (docs/events.md, "Subagents").
  'subagent/spawned': SubagentSpawned
  'subagent/settled': SubagentSettled
  'subagent/sent': SubagentSent
}

/** The text of a message's text blocks (images are shown as a placeholder). */
export function messageText(message: { content: readonly unknown[] }): string {
  return message.content
    .map((block) => {
      const b = block as { type?: string; text?: string }
      return b.type === 'text' ? (b.text ?? '') : `[${b.type ?? 'block'}]`
    })
    .join('')
}

/** Ids of the claimed messages a pre-step rewrote into this one (`source.derivedFrom`). */
export function derivedFrom(message: WireMessage): string[] {
  const from = message.source.derivedFrom
  return Array.isArray(from) ? from.filter((id): id is string => typeof id === 'string') : []
}
