import { messageText, type Agent, type BosunEventMap, type InboxTarget, type SessionEvent, type UserMessage } from '@bosun/core'
import { ERROR_MESSAGE_MAX, oneLine, type Style } from '../output.js'
import { formatDuration } from '../session-info.js'
import { safeStream, safeText, safeValue } from '../terminal-safe.js'
import { describeExchange, type HttpRecorder } from '../http-debug.js'
import { MarkdownLines } from './markdown.js'
import { refusalNote } from '../refusal.js'
import { blockedNote } from '../blocked-note.js'
import { providerWaitNote } from '../rate-limit-note.js'
import { retryHint } from '../retry-hint.js'
import type { Screen } from './screen.js'
import { messageOf } from '../errors.js'

/**
 * Shows what the agent does as the chat transcript: a message as it starts (`› text` for a
 * follow-up, `↳ steer: text` for steering that lands in a step), the answer as it streams, one
 * line per tool call and result, retries, compactions, and how each turn ended (a blocked turn
 * with the plugin and its metadata). Every change of status or queue redraws the live area.
 * Observers must not throw: failures here are swallowed rather than breaking the agent.
 * Session text has its control characters made visible; the streamed answer only when
 * `exactAnswer` is false (stdout is a terminal), as `bosun run` does.
 */
/** What the transcript knows that the status line shows. */
export interface TurnProgress {
  /** When the running step's request went out, while no chunk of its answer has come (the spinner). */
  waitingSince: number | undefined
  /** Tokens of the running turn (or of the last one), summed over its steps' `assistant/message.usage`. */
  usage: { input: number; output: number } | undefined
}

export function attachTranscript(
  agent: Agent,
  screen: Screen,
  style: Style,
  options: { exactAnswer: boolean; http?: HttpRecorder; spinner?: boolean; markdown?: boolean; retryPlugin?: boolean },
): TurnProgress {
  const progress: TurnProgress = { waitingSince: undefined, usage: undefined }
  // On a terminal only: a timer redraws the spinner's elapsed time until the first chunk comes.
  let timer: ReturnType<typeof setInterval> | undefined
  const stopWaiting = () => {
    if (progress.waitingSince === undefined) return
    progress.waitingSince = undefined
    clearInterval(timer)
    timer = undefined
    screen.refresh()
  }
  const safeAnswer = options.exactAnswer ? { write: (text: string) => text, end: () => '' } : safeStream()
  // On a terminal the answer is rendered as Markdown line by line; the unfinished line is previewed as it comes.
  const answer = options.markdown === true && !options.exactAnswer ? renderedAnswer(safeAnswer, screen, new MarkdownLines(style)) : streamedAnswer(safeAnswer, screen)
  const targets = new Map<string, InboxTarget>()
  for (const message of agent.inbox.nextTurn) targets.set(message.id, 'next-turn')
  for (const message of agent.inbox.nextStep) targets.set(message.id, 'next-step')
  let turnStart = 0
  let steps = 0
  /** Whether the running step streamed any text (said with a refusal). */
  let answered = false
  const safe =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A) => {
      try {
        fn(...args)
      } catch {
        // A display failure must not break the agent (observers must not throw).
      }
    }

  agent.hooks.inboxInserted.tap('bosun-chat', safe((message: UserMessage, target: InboxTarget) => {
    targets.set(message.id, target)
    screen.refresh()
  }))
  agent.hooks.inboxDiscarded.tap('bosun-chat', safe((message: UserMessage) => {
    targets.delete(message.id)
    screen.refresh()
  }))
  agent.hooks.inboxClaimed.tap('bosun-chat', safe((message: UserMessage) => {
    const target = targets.get(message.id) ?? 'next-turn'
    targets.delete(message.id)
    const text = safeText(messageText(message))
    if (target === 'next-turn') screen.print(style.bold(`› ${indentRest(text, '  ')}`))
    else if (message.source.kind === 'user') screen.print(style.cyan(`  ↳ steer: ${indentRest(text, '           ')}`))
    else screen.print(style.dim(`  ↳ context from ${safeText(message.source.kind)}: ${oneLine(text, 160)}`))
  }))
  agent.hooks.status.tap('bosun-chat', safe(() => screen.refresh()))
  agent.hooks.error.tap('bosun-chat', safe((error: unknown, context: string) => {
    screen.print(style.yellow(safeText(`  warning: ${context}: ${messageOf(error)}`)))
  }))
  agent.hooks.event.tap('bosun-chat', safe((event: SessionEvent) => {
    switch (event.type) {
      case 'turn/start':
        options.http?.take() // --debug: this turn's requests only
        turnStart = event.time
        steps = 0
        progress.usage = undefined
        screen.refresh()
        break
      case 'step/start':
        steps++
        answered = false
        if (options.spinner) {
          progress.waitingSince = Date.now()
          clearInterval(timer)
          timer = setInterval(() => screen.refresh(), 100)
          timer.unref()
          screen.refresh()
        }
        break
      case 'assistant/chunk': {
        stopWaiting()
        const { chunk } = event.data as BosunEventMap['assistant/chunk']
        if (chunk.type === 'text-delta') {
          answer.write(chunk.text)
          if (chunk.text !== '') answered = true
        }
        break
      }
      case 'step/end': {
        const note = refusalNote(event, answered)
        if (note !== undefined) screen.print(style.yellow(`  ⚠ ${note}`))
        break
      }
      case 'assistant/message': {
        stopWaiting()
        const { usage } = event.data as BosunEventMap['assistant/message']
        if (usage !== undefined && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)) {
          const sum = progress.usage ?? { input: 0, output: 0 }
          progress.usage = { input: sum.input + (usage.inputTokens ?? 0), output: sum.output + (usage.outputTokens ?? 0) }
        }
        answer.end()
        break
      }
      case 'tool/call': {
        const { name, arguments: args } = safeValue(event.data as BosunEventMap['tool/call'])
        screen.print(style.dim(`  → ${name}(${oneLine(args, 160)})`))
        break
      }
      case 'tool/result': {
        const { name, content, isError } = safeValue(event.data as BosunEventMap['tool/result'])
        // The first line, and how many more there are (as `bosun log` says it): a cut result is not taken for the whole.
        const lines = messageText({ content }).split('\n')
        const line = `  ← ${name}: ${oneLine(lines[0] ?? '', 160)}${lines.length > 1 ? ` (+${lines.length - 1} lines)` : ''}`
        screen.print(isError ? style.red(line) : style.dim(line))
        break
      }
      case 'llm/retry': {
        const { attempt, delayMs, error } = safeValue(event.data as BosunEventMap['llm/retry'])
        // What the failed attempt streamed is not part of the answer (core drops it from the
        // message): its line is ended, and the reader told that the answer starts over below it.
        if (answered) answer.end()
        screen.print(style.yellow(`  ↻ retrying (attempt ${attempt} in ${formatDuration(delayMs)}) after ${error.code}`))
        if (answered) screen.print(style.yellow('  ↻ the answer starts over: the text above was the failed attempt\'s, and is not part of the answer'))
        answered = false
        break
      }
      case 'compaction/summary':
        screen.print(style.dim('  ⇢ the history was compacted'))
        break
      case 'turn/end': {
        stopWaiting()
        const { reason } = (event as SessionEvent<'turn/end'>).data
        screen.print(turnEndLine(safeValue(event as SessionEvent<'turn/end'>), steps, event.time - turnStart, agent, style))
        const hint = reason.kind === 'error' ? retryHint(reason.error, options.retryPlugin === true) : undefined
        if (hint !== undefined) screen.print(style.dim(`    ${hint}`))
        if (options.http !== undefined && reason.kind === 'error') {
          for (const exchange of options.http.take()) screen.print(style.dim(safeText(`  debug: ${describeExchange(exchange)}`)))
        }
        break
      }
    }
  }))
  return progress
}

function turnEndLine(event: SessionEvent<'turn/end'>, steps: number, ms: number, agent: Agent, style: Style): string {
  const { turn, reason } = event.data
  const facts = style.dim(` · ${steps} step${steps === 1 ? '' : 's'} · ${formatDuration(ms)}`)
  switch (reason.kind) {
    case 'completed':
      return style.dim(`  ─ turn ${turn} completed`) + facts
    case 'blocked':
      return style.yellow(`  ⊘ turn ${turn} blocked by ${reason.by}: ${blockedNote(reason.by, reason.metadata)}`)
    case 'error':
      return style.red(`  ✗ turn ${turn} failed: ${reason.error.code}: ${oneLine(reason.error.message, ERROR_MESSAGE_MAX)}${providerWaitNote(reason.error, Date.now())}`)
    case 'aborted': {
      const kept = agent.inbox.nextTurn.length + agent.inbox.nextStep.length
      const queue = kept === 0 ? '' : ` — ${kept} queued message${kept === 1 ? '' : 's'} kept (Enter runs ${kept === 1 ? 'it' : 'them'})`
      return style.yellow(`  ■ turn ${turn} aborted${reason.reason ? ` (${reason.reason})` : ''}${queue}`)
    }
    case 'max-tokens':
      return style.yellow(`  ⚠ turn ${turn} stopped at the model's output limit (max-tokens)`)
    default:
      return style.red(`  ↯ turn ${turn} ${reason.kind}`)
  }
}

interface AnswerView {
  write(text: string): void
  end(): void
}

/** The answer as it streams, exactly (a pipe) or made safe (a terminal with `--raw`). */
function streamedAnswer(safe: ReturnType<typeof safeStream>, screen: Screen): AnswerView {
  return {
    write: (text) => screen.stream(safe.write(text)),
    end: () => {
      const rest = safe.end() // a CR held back at the end of the last chunk
      if (rest !== '') screen.stream(rest)
      screen.endStream()
    },
  }
}

/** The answer rendered as Markdown: each finished line once, the unfinished one as a preview. */
function renderedAnswer(safe: ReturnType<typeof safeStream>, screen: Screen, markdown: MarkdownLines): AnswerView {
  let pending = ''
  const take = (text: string) => {
    pending += text
    let newline = pending.indexOf('\n')
    while (newline >= 0) {
      screen.preview('')
      screen.stream(`${markdown.line(pending.slice(0, newline).replace(/\r$/, ''))}\n`)
      pending = pending.slice(newline + 1)
      newline = pending.indexOf('\n')
    }
    screen.preview(pending)
  }
  return {
    write: (text) => take(safe.write(text)),
    end: () => {
      take(safe.end())
      if (pending !== '') {
        screen.preview('')
        screen.stream(markdown.line(pending))
        pending = ''
      }
      markdown.reset()
      screen.endStream()
    },
  }
}

function indentRest(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`)
}
