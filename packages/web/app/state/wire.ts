/**
 * The shapes of the log events the UI reads, as they arrive over the wire (SPEC §2). Written out
 * here because the browser bundle does not import `@bosun/core` (a Node package); unknown event
 * types are kept for the inspector and otherwise ignored.
 */
import type { Queues, WireEvent, WireMessage } from '@bosun/host/client'

export type { Queues, WireEvent, WireMessage }

export type Lane = 'next-turn' | 'next-step'

export type TurnEndReason =
  | { kind: 'completed' }
  | { kind: 'blocked'; by: string; metadata: unknown }
  | { kind: 'aborted'; reason?: string }
  | { kind: 'error'; error: { code: string; message: string } }
  | { kind: 'max-tokens' }
  | { kind: 'interrupted' }

export interface Usage { inputTokens?: number; outputTokens?: number; reasoningTokens?: number; cachedInputTokens?: number }

export type Chunk =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta?: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string }

export type AssistantBlock =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool-call'; id: string; name: string; arguments: string }

/** `outcome`: `canceled` (a public removal), `moved` (a promote: removed here, inserted in the other lane); none on a claim. */
export interface Splice { target: Lane; start: number; removedCount?: number; inserted: WireMessage[]; outcome?: 'canceled' | 'moved' }

/** The data of each core event type the fold reads. */
export interface EventData {
  'turn/start': { turn: number }
  'turn/end': { turn: number; reason: TurnEndReason }
  'step/start': { turn: number; step: number }
  'step/end': { turn: number; step: number; finish: string }
  'user/message': WireMessage
  'assistant/chunk': { turn: number; step: number; chunk: Chunk }
  'assistant/message': { turn: number; step: number; message: { content: AssistantBlock[] }; usage?: Usage; interrupted?: boolean }
  'tool/call': { turn: number; step: number; callId: string; name: string; arguments: string }
  'tool/result': { turn: number; step: number; callId: string; content: { type: string; text?: string }[]; isError?: boolean }
  'agent/inbox/spliced': Splice
  'agent/pre-step/rejected': { turn: number; by: string; metadata: unknown }
  'llm/retry': { turn: number; step: number; attempt: number; delayMs: number; error: { code: string; message: string } }
  'compaction/start': { reason: string }
  'compaction/summary': { summary: string; firstKeptSeq: number }
  'compaction/end': Record<string, unknown>
  'session/end-seed': Record<string, never>
  // Written by @bosun/plugin-subagents in the parent's log (docs/events.md, "Subagents").
  'subagent/spawned': { childId: string; callId: string; agent?: string; mode: 'foreground' | 'background'; depth: number }
  'subagent/settled': { childId: string; epoch: number; messageId?: string; reason?: string; answer?: string }
  'subagent/sent': { childId: string; callId: string; messageId: string }
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
