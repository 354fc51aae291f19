import { formatEvent, messageText, type BosunEventMap, type InboxSplice, type SessionEvent, type SessionHeader, type UserMessage } from '@bosun/core'
import { ERROR_MESSAGE_MAX, oneLine } from './output.js'
import { blockedNote } from './blocked-note.js'
import { providerWaitNote } from './rate-limit-note.js'
import { formatDuration, formatTime } from './session-info.js'
import type { Style } from './output.js'
import { SubagentLines } from './subagent-lines.js'
import { safeValue } from './terminal-safe.js'

/** Message labels, padded so that texts line up. */
const LABEL = { user: 'user     ', assistant: 'assistant', reasoning: 'reasoning' } as const

/** Options of {@link TimelineView}. */
export interface TimelineViewOptions {
  /** Every event, one line each in the core's `formatEvent` form (chunks and claims included), with its seq. */
  all?: boolean
  /** Longest one-line excerpt (tool results, queued messages). Default 100. */
  maxText?: number
}

/**
 * The readable timeline `bosun log` prints: the core's `formatEvent` lines, grouped per turn and
 * step and indented, with friendlier labels for what a reader looks for (messages, tool calls,
 * retries, rejections, compactions, interrupted turns). Incremental — `render(event)` gives the
 * lines of one more event — so `--follow` can print a live session as it grows. Every string of
 * the session (header and events) has its control characters made visible before it is shown.
 */
export class TimelineView {
  readonly #style: Style
  readonly #options: TimelineViewOptions
  /** The inbox queues as the log has built them so far, to name what a cancel removed. */
  readonly #queues: Record<'next-turn' | 'next-step', UserMessage[]> = { 'next-turn': [], 'next-step': [] }
  /** Ids removed by the first half of a move, until the insertion that completes it. */
  readonly #moving = new Set<string>()
  #turn: { turn: number; startedAt: number; steps: number } | undefined
  #step = 0
  #seedLength = 0
  /** A step whose line waits for its `request/header`, and the lines logged in between. */
  #pendingStep: { step: number; held: string[] } | undefined
  /** The current step's line was printed without its model (its request came in a later read). */
  #stepShownBare = false
  /** Spawns and settlements of subagents (`@bosun/plugin-subagents`). */
  readonly #subagents: SubagentLines

  constructor(style: Style, options: TimelineViewOptions = {}) {
    this.#style = style
    this.#options = options
    this.#subagents = new SubagentLines(style, this.#max())
  }

  /** The session's first line. */
  header(header: SessionHeader): string[] {
    header = safeValue(header)
    this.#seedLength = header.seedLength ?? 0
    const s = this.#style
    const parts = [`${s.bold('session')} ${s.bold(header.id)}`, `created ${formatTime(header.createdAt)}`]
    if (header.parent) parts.push(`forked from ${header.parent}`)
    return [parts.join(s.dim(' · '))]
  }

  /**
   * The lines of one event (often none: chunks, claims and step ends are folded into others). A
   * step's line waits for its `request/header`, to name the adapter and model that answered
   * (`step 1 · openai gpt-4o-mini`); what the step logged before it (steers spliced in, the
   * context) follows the step line. Call {@link end} after the last event.
   */
  render(stored: SessionEvent): string[] {
    const event = safeValue(stored)
    if (this.#options.all) return this.#raw(event, stored)
    const pending = this.#pendingStep
    if (pending === undefined) {
      if (event.type !== 'request/header' || !this.#stepShownBare) return this.#render(event, stored)
      // The step's line was printed before its request was read (`--follow`): the model on a line of its own.
      this.#stepShownBare = false
      return [this.#at(2, `${this.#style.dim('answered by ')}${this.#style.blue(answeredBy(event.data as BosunEventMap['request/header']))}`)]
    }
    if (event.type === 'request/header') {
      this.#pendingStep = undefined
      return [this.#stepLine(pending.step, answeredBy(event.data as BosunEventMap['request/header'])), ...pending.held]
    }
    if (event.type === 'user/message' || event.type === 'agent/inbox/spliced' || event.type === 'request/context') {
      pending.held.push(...this.#render(event, stored))
      return []
    }
    return [...this.end(), ...this.#render(event, stored)]
  }

  /**
   * What is still held: the line of a step whose request is not logged (yet: `--follow` calls this
   * after each read; or ever: an abort, a crash).
   */
  end(): string[] {
    const pending = this.#pendingStep
    if (pending === undefined) return []
    this.#pendingStep = undefined
    this.#stepShownBare = true
    return [this.#stepLine(pending.step, undefined), ...pending.held]
  }

  #stepLine(step: number, answeredBy: string | undefined): string {
    const s = this.#style
    return this.#at(1, `${s.dim(`step ${step}`)}${answeredBy === undefined ? '' : `${s.dim(' · ')}${s.blue(answeredBy)}`}`)
  }

  #render(event: SessionEvent, stored: SessionEvent): string[] {
    const s = this.#style
    const d = event.data as Record<string, unknown>
    switch (event.type) {
      case 'turn/start': {
        const turn = (d as BosunEventMap['turn/start']).turn
        this.#turn = { turn, startedAt: event.time, steps: 0 }
        this.#step = 0
        return [`${s.bold(`turn ${turn}`)}  ${s.dim(formatTime(event.time))}`]
      }
      case 'step/start':
        this.#step = (d as BosunEventMap['step/start']).step
        if (this.#turn) this.#turn.steps++
        this.#pendingStep = { step: this.#step, held: [] }
        this.#stepShownBare = false
        return []
      case 'step/end': {
        const { finish } = d as BosunEventMap['step/end']
        this.#step = 0
        return finish === 'stop' || finish === 'tool-calls' ? [] : [this.#at(2, s.dim(`step ended: ${finish}`))]
      }
      case 'turn/end':
        return this.#turnEnd(event as SessionEvent<'turn/end'>)
      case 'user/message': {
        const message = event.data as UserMessage
        const from = message.source.kind === 'user' ? '' : s.dim(` (${message.source.kind})`)
        return this.#block(this.#depth(), `${s.cyan(LABEL.user)}`, messageText(message) + from)
      }
      case 'assistant/message':
        return this.#assistant(event as SessionEvent<'assistant/message'>)
      case 'tool/call': {
        const { name, arguments: args } = d as BosunEventMap['tool/call']
        return [this.#at(this.#depth(), `${s.magenta('→')} ${name}(${oneLine(args, this.#max())})`)]
      }
      case 'tool/result': {
        const { name, content, isError } = d as BosunEventMap['tool/result']
        const text = messageText({ content })
        const lines = text.split('\n')
        const more = lines.length > 1 ? s.dim(` (+${lines.length - 1} lines)`) : ''
        const line = `${s.magenta('←')} ${name}: ${oneLine(lines[0] ?? '', this.#max())}${more}`
        return [this.#at(this.#depth(), isError ? s.red(`${line} [error]`) : line)]
      }
      case 'agent/inbox/spliced':
        return this.#splice(d as unknown as InboxSplice)
      case 'agent/pre-step/rejected':
        return [] // the turn/end that follows says "blocked by <plugin>" with the same metadata
      case 'llm/retry': {
        const { attempt, delayMs, error } = d as BosunEventMap['llm/retry']
        return [this.#at(this.#depth(), s.yellow(`↻ retry: attempt ${attempt} in ${formatDuration(delayMs)} after ${error.code}: ${oneLine(error.message, this.#max())}`))]
      }
      case 'compaction/start':
        return [this.#at(this.#depth(), s.blue(`⇢ compaction (${String(d.reason ?? 'unknown')})`))]
      case 'compaction/summary': {
        const { summary, firstKeptSeq } = d as BosunEventMap['compaction/summary']
        return [this.#at(this.#depth() + 1, s.blue(`summary: ${oneLine(summary, this.#max())} ${s.dim(`(replaces the history before seq ${firstKeptSeq})`)}`))]
      }
      case 'compaction/end':
        return d.ok === false
          ? [this.#at(this.#depth(), s.yellow(`⇢ compaction failed${d.reason ? ` (${String(d.reason)})` : ''}: the history is unchanged`))]
          : [this.#at(this.#depth(), s.blue('⇢ compaction done'))]
      case 'session/end-seed':
        return [s.dim(`── the fork's own history starts here (the ${this.#seedLength - 1} events above are the parent's) ──`)]
      case 'request/context':
        return [this.#at(this.#depth(), `${s.blue('context')}: ${contextSummary(d, stored.data, this.#max())}`)]
      case 'request/header':
      case 'assistant/chunk':
        return []
      case 'subagent/spawned':
        return [this.#at(this.#depth(), this.#subagents.spawned(d))]
      case 'subagent/settled':
        return [this.#at(this.#depth(), this.#subagents.settled(d))]
      case 'subagent/sent':
        return [this.#at(this.#depth(), this.#subagents.sent(d))]
      default: {
        const line = formatEvent(event, { maxText: this.#max() })
        return line === undefined ? [] : [this.#at(this.#depth(), s.dim(line))]
      }
    }
  }

  #turnEnd(event: SessionEvent<'turn/end'>): string[] {
    const s = this.#style
    const { reason } = event.data
    const turn = this.#turn
    this.#turn = undefined
    this.#step = 0
    const facts: string[] = []
    if (turn) facts.push(`${turn.steps} step${turn.steps === 1 ? '' : 's'}`, formatDuration(event.time - turn.startedAt))
    const tail = facts.length > 0 ? s.dim(` · ${facts.join(' · ')}`) : ''
    switch (reason.kind) {
      case 'completed':
        return [this.#at(1, `${s.green('✓ completed')}${tail}`)]
      case 'blocked':
        return [this.#at(1, `${s.yellow(`⊘ blocked by ${reason.by}`)}: ${blockedNote(reason.by, reason.metadata, event.time, true)}${tail}`)]
      case 'error':
        return [this.#at(1, `${s.red(`✗ error ${reason.error.code}`)}: ${oneLine(reason.error.message, ERROR_MESSAGE_MAX)}${providerWaitNote(reason.error, event.time, true)}${tail}`)]
      case 'aborted':
        return [this.#at(1, `${s.yellow(`■ aborted${reason.reason ? ` (${reason.reason})` : ''}`)}${tail}`)]
      case 'max-tokens':
        return [this.#at(1, `${s.yellow('⚠ max-tokens: the answer was cut at the output limit')}${tail}`)]
      case 'interrupted':
        // No duration: the end was written when the session was reopened, not when the turn stopped.
        return [this.#at(1, `${s.red('↯ interrupted')}: the process stopped during this turn; it was closed when the session was reopened`)]
      default:
        return [this.#at(1, `turn ended: ${JSON.stringify(reason)}`)]
    }
  }

  #assistant(event: SessionEvent<'assistant/message'>): string[] {
    const s = this.#style
    const { message, interrupted, usage } = event.data
    const lines: string[] = []
    const depth = this.#depth()
    for (const block of message.content) {
      if (block.type === 'text') lines.push(...this.#block(depth, s.green(LABEL.assistant), block.text))
      else if (block.type === 'reasoning') lines.push(...this.#block(depth, s.dim(LABEL.reasoning), block.text).map((line) => s.dim(line)))
    }
    const notes: string[] = []
    if (interrupted) notes.push(s.yellow('(interrupted: the stream was cut here)'))
    if (usage && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)) {
      notes.push(s.dim(`${usage.inputTokens ?? '?'} in / ${usage.outputTokens ?? '?'} out tokens`))
    }
    if (notes.length > 0) {
      if (lines.length === 0) lines.push(this.#at(depth, `${s.green(LABEL.assistant)} ${notes.join(' ')}`))
      else lines[lines.length - 1] += ` ${notes.join(' ')}`
    }
    return lines
  }

  #splice(splice: InboxSplice): string[] {
    const s = this.#style
    const queue = this.#queues[splice.target]
    const removed = queue.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
    if (splice.outcome === 'moved') {
      // The first half of a move (a promote): shown once, by the insertion that follows it.
      for (const message of removed) this.#moving.add(message.id)
      return []
    }
    if (splice.outcome !== 'canceled' && removed.length > 0 && splice.inserted.length === 0) return [] // a claim: shown as user/message
    const depth = this.#depth()
    const lines: string[] = []
    const label = (message: UserMessage) =>
      splice.target === 'next-turn' ? 'queued' : message.source.kind === 'user' ? 'steer' : `context (${message.source.kind})`
    if (removed.length > 0 && splice.inserted.length > 0) {
      for (const message of splice.inserted) lines.push(this.#at(depth, s.dim(`~ edited: ${this.#quote(messageText(message))}`)))
      return lines
    }
    for (const message of removed) lines.push(this.#at(depth, s.dim(`- canceled: ${this.#quote(messageText(message))}`)))
    for (const message of splice.inserted) {
      const moved = this.#moving.delete(message.id)
      const what = moved ? `promoted to ${splice.target === 'next-step' ? 'steer' : 'queued'}` : label(message)
      lines.push(this.#at(depth, s.dim(`${moved ? '^' : '+'} ${what}: ${this.#quote(messageText(message))}`)))
    }
    return lines
  }

  /** A labelled text block: the first line after the label, continuation lines aligned under it. */
  #block(depth: number, label: string, text: string): string[] {
    const [first = '', ...rest] = text.split('\n')
    const pad = ' '.repeat(label.replace(/\u001b\[[0-9;]*m/g, '').length + 1)
    return [this.#at(depth, `${label} ${first}`), ...rest.map((line) => this.#at(depth, `${pad}${line}`))]
  }

  #raw(event: SessionEvent, stored: SessionEvent): string[] {
    if (event.type === 'turn/start') this.#turn = { turn: (event.data as { turn: number }).turn, startedAt: event.time, steps: 0 }
    if (event.type === 'step/start') this.#step = (event.data as { step: number }).step
    const depth = this.#depth()
    if (event.type === 'turn/start' || event.type === 'turn/end') this.#step = 0
    if (event.type === 'turn/end') this.#turn = undefined
    if (event.type === 'step/end') this.#step = 0
    // The core's form of request/context is the whole prompt and every tool schema: summarized here too.
    const line = event.type === 'request/context'
      ? `request/context ${contextSummary(event.data as Record<string, unknown>, stored.data, this.#max())}`
      : formatEvent(event, { chunks: true, maxText: this.#max() })
    if (line === undefined) return []
    const rawDepth = event.type === 'turn/start' || event.type === 'turn/end' ? 0 : event.type.startsWith('step/') ? 1 : depth
    return [`${this.#style.dim(String(event.seq).padStart(5))} ${this.#at(rawDepth, line)}`]
  }

  #depth(): number {
    return this.#turn === undefined ? 0 : this.#step > 0 ? 2 : 1
  }

  #at(depth: number, text: string): string {
    return `${'  '.repeat(depth)}${text}`
  }

  #max(): number {
    return this.#options.maxText ?? 100
  }

  #quote(text: string): string {
    return JSON.stringify(oneLine(text, this.#max()))
  }
}

/** `openai gpt-4o-mini`: the adapter of a `request/header`, and its model when it names one. */
function answeredBy({ adapter, model }: BosunEventMap['request/header']): string {
  return `${adapter}${model === undefined ? '' : ` ${model}`}`
}

/** Longest excerpt of a system prompt in a `request/context` line. */
const SYSTEM_EXCERPT = 60

/**
 * A `request/context { system, tools }` event (the system prompt and tool set of the requests
 * that follow, logged when they change) in one line: `system prompt (N characters: "…"), tools:
 * a, b`. `data` is made safe to print; `stored` is the data as logged, whose prompt is counted.
 * Written for hand-made or damaged logs too: a field of the wrong type is said so, not thrown on.
 */
function contextSummary(data: Record<string, unknown>, stored: unknown, max: number): string {
  const { system, tools } = data
  let prompt: string
  if (system === undefined || system === '') prompt = 'no system prompt'
  else if (typeof system !== 'string') prompt = 'system prompt (not text)'
  else {
    const count = [...String((stored as { system: string }).system)].length
    prompt = `system prompt (${count} character${count === 1 ? '' : 's'}: ${JSON.stringify(oneLine(system, SYSTEM_EXCERPT))})`
  }
  if (tools !== undefined && !Array.isArray(tools)) return `${prompt}, tools (not a list)`
  const list: unknown[] = tools ?? []
  if (list.length === 0) return `${prompt}, no tools`
  const names = list.map((tool) => (tool as { name?: unknown } | null)?.name).map((name) => (typeof name === 'string' ? name : '?')).join(', ')
  const shown = oneLine(names, max)
  return `${prompt}, tools: ${shown}${shown === names ? '' : ` (${list.length} tools)`}`
}
