import { messageText, type Agent, type BosunEventMap, type SessionEvent } from '@bosun/core'
import type { CommandContext } from '../context.js'
import { oneLine } from '../output.js'
import { refusalNote } from '../refusal.js'
import { safeJson, safeStream, safeValue } from '../terminal-safe.js'

/** What `bosun run` prints for each event of the run: the events as JSON lines, or the answer. */
export function runPrinter(ctx: CommandContext, agent: Agent, json: boolean): (event: SessionEvent) => void {
  if (json) return (event) => ctx.out.write(`${safeJson(JSON.stringify(event))}\n`)
  // Only a plugin that wraps the model's stream (`llm/stream`: retry, compaction) can send a step's
  // request again after an attempt already streamed text (core logs `llm/retry` and drops that
  // text from the message). Bytes in a pipe or a file cannot be taken back, so there a step's text
  // waits until its model call is over; a terminal still sees it stream, and is told it restarts.
  const holdSteps = !ctx.out.isTTY && agent.hooks.llmStream.taps.length > 0
  return textPrinter(ctx, holdSteps)
}

/**
 * The answer's text to stdout as it streams (or, with `holdSteps`, each step's text once its model
 * call is over) — exact when stdout is not a terminal, with control characters made visible when
 * it is; tool calls, results and retries to stderr, always made safe.
 */
function textPrinter(ctx: CommandContext, holdSteps: boolean): (event: SessionEvent) => void {
  const { out, err } = ctx
  const answer = out.isTTY ? safeStream() : { write: (text: string) => text, end: () => '' }
  let atLineStart = true
  /** Whether the step's current attempt produced any text (said with a refusal, and on a retry). */
  let answered = false
  /** With `holdSteps`: the current attempt's text, not written yet. */
  let held = ''
  /** Keeps a stderr line off the end of a half-written stdout line when both are the terminal. */
  const errLine = (text: string) => {
    if (!atLineStart && out.isTTY && err.isTTY) {
      out.write('\n')
      atLineStart = true
    }
    err.line(text)
  }
  const write = (text: string) => {
    if (text.length === 0) return
    out.write(text)
    atLineStart = text.endsWith('\n')
  }
  const flush = () => {
    write(held)
    held = ''
  }
  return (event) => {
    switch (event.type) {
      case 'assistant/chunk': {
        const { chunk } = event.data as BosunEventMap['assistant/chunk']
        if (chunk.type !== 'text-delta') break
        if (holdSteps) held += chunk.text
        else write(answer.write(chunk.text))
        if (chunk.text !== '') answered = true
        break
      }
      case 'step/start':
        answered = false
        break
      case 'step/end': {
        flush()
        const note = refusalNote(event, answered)
        if (note !== undefined) errLine(err.style.yellow(`warning: ${note}`))
        break
      }
      case 'assistant/message':
        // The model call is over: what is held is the attempt the message holds.
        flush()
        write(answer.end())
        if (!atLineStart) {
          out.write('\n')
          atLineStart = true
        }
        break
      case 'tool/call': {
        const { name, arguments: args } = safeValue(event.data as BosunEventMap['tool/call'])
        errLine(err.style.dim(`→ ${name}(${oneLine(args, 200)})`))
        break
      }
      case 'tool/result': {
        const { name, content, isError } = safeValue(event.data as BosunEventMap['tool/result'])
        const first = messageText({ content }).split('\n')[0] ?? ''
        const line = `← ${name}: ${oneLine(first, 200)}`
        errLine(isError ? err.style.red(line) : err.style.dim(line))
        break
      }
      case 'llm/retry': {
        const { attempt, delayMs, error } = safeValue(event.data as BosunEventMap['llm/retry'])
        // The failed attempt's text is not part of the answer: dropped when held, else said so.
        const shown = answered && !holdSteps
        held = ''
        answered = false
        write(answer.end())
        errLine(err.style.yellow(`↻ retrying (attempt ${attempt} in ${delayMs}ms) after ${error.code}: ${oneLine(error.message, 160)}`))
        if (shown) errLine(err.style.yellow('↻ the answer starts over: the text above was the failed attempt\'s, and is not part of the answer'))
        break
      }
      case 'compaction/summary':
        errLine(err.style.dim('⇢ the history was compacted'))
        break
    }
  }
}
