import type { InboxSplice } from '../inbox/types.js'
import type { BosunEventMap, SessionEvent } from './events.js'
import { messageText, type UserMessage } from './messages.js'

export interface TimelineOptions {
  /** Include `assistant/chunk` lines (off by default: one line per delta is noise). */
  chunks?: boolean
  /** Include `request/context` and `request/header` lines. Default true. */
  requests?: boolean
  /** Longest quoted text before it is cut with `…`. Default 60. */
  maxText?: number
}

/**
 * One readable line per event: the compact form used by `bosun log`, the test kit and the
 * behaviour suite's inline snapshots. Messages are shown by their text, not their ids.
 *
 * @example
 * formatTimeline(agent.session.events)
 * // turn/start 1
 * // splice next-turn @0 -1
 * // step/start 1.1
 * // user/message "hello"
 */
export function formatTimeline(events: readonly SessionEvent[], options: TimelineOptions = {}): string {
  const lines: string[] = []
  for (const event of events) {
    const line = formatEvent(event, options)
    if (line !== undefined) lines.push(line)
  }
  return lines.join('\n')
}

/** One event as one line, or `undefined` for an event the options hide. */
export function formatEvent(event: SessionEvent, options: TimelineOptions = {}): string | undefined {
  const max = options.maxText ?? 60
  const quote = (text: string) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text)
  const d = event.data as Record<string, unknown>
  switch (event.type) {
    case 'turn/start':
      return `turn/start ${d.turn}`
    case 'turn/end': {
      const { turn, reason } = d as BosunEventMap['turn/end']
      if (reason.kind === 'blocked') return `turn/end ${turn} blocked by=${reason.by} ${JSON.stringify(reason.metadata)}`
      if (reason.kind === 'error') return `turn/end ${turn} error ${reason.error.code}`
      if (reason.kind === 'aborted' && reason.reason) return `turn/end ${turn} aborted (${reason.reason})`
      return `turn/end ${turn} ${reason.kind}`
    }
    case 'step/start':
      return `step/start ${d.turn}.${d.step}`
    case 'step/end':
      return `step/end ${d.turn}.${d.step} ${d.finish}`
    case 'user/message': {
      const message = event.data as UserMessage
      const source = message.source.kind === 'user' ? '' : ` (${message.source.kind})`
      return `user/message ${quote(messageText(message))}${source}`
    }
    case 'agent/inbox/spliced': {
      const s = event.data as InboxSplice
      const parts = [`splice ${s.target} @${s.start}`]
      if (s.removedCount) parts.push(`-${s.removedCount}`)
      if (s.inserted.length > 0) parts.push(`+[${s.inserted.map((m) => quote(messageText(m))).join(', ')}]`)
      if (s.outcome) parts.push(s.outcome)
      return parts.join(' ')
    }
    case 'request/context': {
      const { system, tools } = event.data as BosunEventMap['request/context']
      return options.requests === false ? undefined : `request/context system ${quote(system)} tools [${tools.map((tool) => tool.name).join(', ')}]`
    }
    case 'request/header':
      return options.requests === false ? undefined : `request/header ${d.turn}.${d.step} ${d.messageCount} messages`
    case 'assistant/chunk':
      return options.chunks ? `assistant/chunk ${JSON.stringify(d.chunk)}` : undefined
    case 'assistant/message': {
      const { message, interrupted } = event.data as BosunEventMap['assistant/message']
      const parts: string[] = []
      for (const block of message.content) {
        if (block.type === 'text') parts.push(quote(block.text))
        else if (block.type === 'reasoning') parts.push(`(reasoning ${quote(block.text)})`)
        else parts.push(`${block.name}(${block.arguments})`)
      }
      return `assistant/message ${parts.join(' ')}${interrupted ? ' interrupted' : ''}`.trimEnd()
    }
    case 'tool/call':
      return `tool/call ${d.name} ${d.arguments}`
    case 'tool/result': {
      const { name, content, isError } = event.data as BosunEventMap['tool/result']
      return `tool/result ${name} ${quote(messageText({ content }))}${isError ? ' error' : ''}`
    }
    case 'agent/pre-step/rejected':
      return `rejected ${d.turn} by=${d.by} ${JSON.stringify(d.metadata)}`
    case 'compaction/start':
      return `compaction/start (${String(d.reason)})`
    case 'compaction/summary':
      return `compaction/summary ${quote(String(d.summary))} replaces seq < ${String(d.firstKeptSeq)}`
    case 'compaction/end':
      return `compaction/end${d.ok === false ? ` failed${d.reason ? ` (${String(d.reason)})` : ''}` : ''}`
    case 'llm/retry':
      return `llm/retry ${d.turn}.${d.step} attempt=${d.attempt} delay=${d.delayMs}ms ${(d.error as { code: string }).code}`
    default:
      return `${event.type} ${JSON.stringify(event.data)}`
  }
}
