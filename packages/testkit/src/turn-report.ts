import { formatTimeline, messageText } from '@bosun/core'
import type { BosunEventMap, JsonValue, SerializedError, SessionEvent, TurnEndReason, UserMessage } from '@bosun/core'

/** A pre-step rejection as the log recorded it. */
export interface Rejection {
  /** The tap (plugin) name that rejected the step. */
  by: string
  metadata: JsonValue
}

/**
 * What happened in a slice of the log — usually the turn (or turns) one `send` caused. Every
 * field is derived from `events`, the log being the only source of truth.
 */
export interface TurnReport {
  /** The events appended during the slice, in order. */
  readonly events: readonly SessionEvent[]
  /** `formatTimeline(events)` without `request/header` lines: one readable line per event. */
  readonly timeline: string
  /** The numbers of the turns that started in the slice. */
  readonly turns: readonly number[]
  /** The `user/message` events — what the model saw as new input — in order. */
  readonly messages: readonly UserMessage[]
  /** The text of each entered message (`messageText`), in order. */
  readonly entered: readonly string[]
  /** The first pre-step rejection of the slice (`agent/pre-step/rejected`), if any. */
  readonly rejected: Rejection | undefined
  /** The assistant's text: the text blocks of each `assistant/message`, messages joined by `\n`. */
  readonly reply: string
  /** The reason of the last `turn/end` of the slice (`undefined` if no turn ended). */
  readonly end: TurnEndReason | undefined
  /** The error of the first turn that ended `error` (a throwing hook: `PLUGIN_HOOK_FAILED`). */
  readonly error: SerializedError | undefined
}

/**
 * Summarises a slice of a session log. `testPlugin`'s `send` returns one for the events its
 * follow-up caused; call it yourself on any slice of `agent.session.events`.
 *
 * @example
 * const from = agent.session.events.length
 * agent.followup('hello')
 * await agent.whenIdle()
 * const turn = turnReport(agent.session.events.slice(from))
 * turn.entered // ['hello']
 */
export function turnReport(events: readonly SessionEvent[]): TurnReport {
  const turns: number[] = []
  const messages: UserMessage[] = []
  const replies: string[] = []
  let rejected: Rejection | undefined
  let end: TurnEndReason | undefined
  let error: SerializedError | undefined
  for (const event of events) {
    switch (event.type) {
      case 'turn/start':
        turns.push((event.data as BosunEventMap['turn/start']).turn)
        break
      case 'user/message':
        messages.push(event.data as UserMessage)
        break
      case 'agent/pre-step/rejected': {
        const { by, metadata } = event.data as BosunEventMap['agent/pre-step/rejected']
        rejected ??= { by, metadata }
        break
      }
      case 'assistant/message': {
        const { message } = event.data as BosunEventMap['assistant/message']
        const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
        if (text !== '') replies.push(text)
        break
      }
      case 'turn/end': {
        end = (event.data as BosunEventMap['turn/end']).reason
        if (end.kind === 'error') error ??= end.error
        break
      }
    }
  }
  return {
    events,
    timeline: formatTimeline(events, { requests: false }),
    turns,
    messages,
    entered: messages.map((message) => messageText(message)),
    rejected,
    reply: replies.join('\n'),
    end,
    error,
  }
}
