import { messageText, type UserMessage } from '@bosun/core'
import { oneLine, type Style } from '../output.js'
import { safeText } from '../terminal-safe.js'

/** What the live area shows. */
export interface LiveState {
  status: 'idle' | 'running'
  turn: number
  model: string
  nextTurn: readonly UserMessage[]
  nextStep: readonly UserMessage[]
  /** A transient note, e.g. "Ctrl+C again or Ctrl+D exits". */
  hint: string | undefined
  /** Since when (epoch ms) the model is awaited with no token yet: a spinner with the elapsed time. */
  waitingSince?: number | undefined
  /** Now, for the elapsed time. Default `Date.now()`. */
  now?: number
  /** Tokens of the running turn, or of the last one when idle. */
  usage?: { input: number; output: number } | undefined
}

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'

/** Queued messages shown at most, before "… and N more". */
const MAX_SHOWN = 5

/**
 * The lines above the prompt: each queued message (numbered as `/drop` counts them: follow-ups
 * first, then messages waiting for the next step) and the status line — running or idle, the
 * turn, the model and how many messages wait.
 */
export function liveLines(state: LiveState, style: Style): string[] {
  const lines: string[] = []
  const queued = queuedItems(state.nextTurn, state.nextStep)
  for (const item of queued.slice(0, MAX_SHOWN)) lines.push(style.dim(`  ${item.number}. ${item.label}: ${oneLine(item.text, 200)}`))
  if (queued.length > MAX_SHOWN) lines.push(style.dim(`  … and ${queued.length - MAX_SHOWN} more (/queue lists them)`))
  lines.push(statusLine(state, style))
  return lines
}

/** `● running · turn 2 · ⠙ waiting for the model 1.2s · scripted · 1 queued`, `○ idle · scripted · last turn 12 in / 30 out tokens · 0 queued`. */
export function statusLine(state: LiveState, style: Style): string {
  const count = state.nextTurn.length + state.nextStep.length
  const parts = state.status === 'running' ? [style.yellow('● running'), `turn ${state.turn}`] : [style.green('○ idle')]
  if (state.status === 'running' && state.waitingSince !== undefined) {
    const elapsed = Math.max(0, (state.now ?? Date.now()) - state.waitingSince)
    parts.push(style.cyan(`${SPINNER[Math.floor(elapsed / 100) % SPINNER.length]} waiting for the model ${(elapsed / 1000).toFixed(1)}s`))
  }
  parts.push(state.model)
  if (state.usage !== undefined) {
    const tokens = `${state.usage.input} in / ${state.usage.output} out tokens`
    parts.push(state.status === 'running' ? tokens : `last turn ${tokens}`)
  }
  if (state.status === 'idle' && count > 0) parts.push(style.yellow(`${count} queued — Enter runs ${count === 1 ? 'it' : 'them'}`))
  else parts.push(`${count} queued`)
  if (state.hint) parts.push(style.bold(state.hint))
  return parts.join(style.dim(' · '))
}

/** A pending message as `/queue` and `/drop` number it. */
export interface QueuedItem {
  number: number
  label: 'queued' | 'steer' | 'context'
  /** The message's text, control characters made visible (it is only ever shown). */
  text: string
  message: UserMessage
}

export function queuedItems(nextTurn: readonly UserMessage[], nextStep: readonly UserMessage[]): QueuedItem[] {
  const items: QueuedItem[] = []
  for (const message of nextTurn) items.push({ number: items.length + 1, label: 'queued', text: safeText(messageText(message)), message })
  for (const message of nextStep) {
    const label = message.source.kind === 'user' ? 'steer' : 'context'
    items.push({ number: items.length + 1, label, text: safeText(messageText(message)), message })
  }
  return items
}
