import type { TurnEndReason } from '@bosun/core'

/** `subagent/spawned`, in the parent's log when a child is admitted. */
export interface SubagentSpawned {
  childId: string
  callId: string
  /** The profile named by `spawn_agent {agent}`, if any. */
  agent?: string
  mode: 'foreground' | 'background'
  depth: number
}

/** `subagent/settled`, in the parent's log once per settled epoch of a child. */
export interface SubagentSettled {
  childId: string
  epoch: number
  /** `settle:<childId>:<epoch>`, the message that carried the answer; absent when a foreground tool result carried it. */
  messageId?: string
  /**
   * How the child's settling turn ended (`completed`, `aborted`, `interrupted`, …); `error` with an
   * empty answer when the child could not be created. Absent in logs written before it was recorded.
   */
  reason?: TurnEndReason['kind']
  /**
   * The answer, as the message or tool result carried it: a foreground answer whose tool result a
   * crash cut is delivered again from here on reopen, and readers (`bosun log`) show it without
   * opening the child. Absent in logs written before it was recorded.
   */
  answer?: string
}

/** `subagent/sent`, in the parent's log when `send_to_agent` queued a follow-up in a child (it is live again). */
export interface SubagentSent {
  childId: string
  callId: string
  messageId: string
}

declare module '@bosun/core' {
  interface BosunEventMap {
    'subagent/spawned': SubagentSpawned
    'subagent/settled': SubagentSettled
    'subagent/sent': SubagentSent
  }
}

export const SUBAGENT_EVENTS = {
  'subagent/spawned': { ignorable: true },
  'subagent/settled': { ignorable: true },
  'subagent/sent': { ignorable: true },
} as const
