import { BosunError, ErrorCodes } from '../errors.js'
import { CORE_EVENT_TYPES, type SessionEvent } from './events.js'

/**
 * Refuses a stored log that holds an event type this agent cannot interpret: one that is neither
 * a core type, nor declared by one of the agent's plugins, nor marked `ignorable` in the log.
 * A reader that silently skipped such an event (a compaction summary, say) would rebuild a wrong
 * history; the error says which plugin to add.
 */
export function checkEventTypes(events: readonly SessionEvent[], declared: ReadonlySet<string>, sessionId: string): void {
  for (const event of events) {
    if (CORE_EVENT_TYPES.has(event.type) || declared.has(event.type) || event.ignorable === true) continue
    const namespace = event.type.split('/')[0]
    throw new BosunError(
      ErrorCodes.UNKNOWN_EVENT_TYPE,
      `Session "${sessionId}" has an event of unknown type "${event.type}" at seq ${event.seq}. Add the plugin that writes it (probably "${namespace}") to the agent, or open the session with a build that knows it.`,
      { details: { sessionId, seq: event.seq, type: event.type } },
    )
  }
}
