import { createUserMessage, type SessionEvent, type TurnEndReason } from '@bosun/core'
import { configPlugins, loadCliConfig, openStore } from '../agent.js'
import { blockedNote } from '../blocked-note.js'
import { providerWaitNote } from '../rate-limit-note.js'
import { terminalRows } from '../wrap.js'
import type { CommandContext } from '../context.js'
import { ExitCode, exitCodeFor } from '../exit-codes.js'
import { describeExchange, recordHttp, type HttpExchange } from '../http-debug.js'
import { leaveSession } from '../leave-session.js'
import { openSessionAgent, type OpenedSession } from '../open-session.js'
import { recoveryNote } from '../recovery-note.js'
import { namesRetryPlugin, retryHint } from '../retry-hint.js'
import { checkSessionId, newSessionId } from '../session-id.js'
import { during } from '../stall.js'
import { safeText, safeValue } from '../terminal-safe.js'
import { runPrinter } from './run-output.js'
import { messageOf } from '../errors.js'
import { onStopSignal, STOP_SIGNALS, type StopSignal } from '../stop-signals.js'

export interface RunOptions {
  /** Continue this session (created with this id if the store does not have it). */
  session?: string
  /** Print the session events as JSON lines instead of the answer. */
  json?: boolean
}

/**
 * `bosun run "<prompt>"`: one turn. The answer streams to stdout as it arrives (into a pipe or a
 * file with a stream-wrapping plugin, a step at a time: run-output.ts); tool calls and results go
 * to stderr, one line each; a turn that does not complete prints its reason on stderr and sets the
 * exit code (completed 0, error 1, blocked 3, aborted 130, 143 by SIGTERM, 129 by SIGHUP). Ctrl+C aborts the
 * turn; a second Ctrl+C stops waiting.
 */
export async function runCommand(ctx: CommandContext, prompt: string, options: RunOptions): Promise<number> {
  const sessionId = options.session === undefined ? newSessionId() : checkSessionId(options.session)
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const store = await openStore(cfg)
  let opened: OpenedSession
  try {
    // A subagent's child is opened through its parent (one stderr line says so): see open-session.ts.
    opened = await openSessionAgent(cfg, store, sessionId, (line) => ctx.err.line(ctx.err.style.dim(line)))
  } catch (error) {
    await store.close().catch(() => {})
    throw error
  }
  const { agent } = opened
  // A turn a crash left open was closed as opening repaired it; what it had claimed runs first.
  const recovered = recoveryNote(agent)
  if (recovered !== undefined) ctx.err.line(ctx.err.style.yellow(`note: ${recovered}`))

  // --debug: the HTTP requests of the turn, shown when it fails.
  const http = ctx.debug ? recordHttp() : undefined
  const message = createUserMessage(prompt)
  let turn: number | undefined
  let reason: TurnEndReason | undefined
  agent.hooks.inboxClaimed.tap('bosun-cli', (claimed, claimedBy) => {
    if (claimed.id === message.id) turn = claimedBy
  })
  const print = runPrinter(ctx, agent, options.json === true)
  // Contained failures (a throwing observer, a failed flush in a finally) are reported, not lost.
  agent.hooks.error.tap('bosun-cli', (error, context) => {
    ctx.err.line(ctx.err.style.yellow(safeText(`warning: ${context}: ${messageOf(error)}`)))
  })
  agent.hooks.event.tap('bosun-cli', (event) => {
    print(event)
    if (event.type === 'turn/end' && (event as SessionEvent<'turn/end'>).data.turn === turn) reason = (event as SessionEvent<'turn/end'>).data.reason
  })

  /** Ctrl+C and SIGTERM so far: the first of either aborts the turn. */
  let interrupts = 0
  /** A second signal came: the run stops waiting (`forced`) for the turn or the session's close. */
  let stopped = false
  let resolveForced: () => void = () => {}
  const forced = new Promise<void>((resolve) => (resolveForced = resolve))
  const forceStop = (): void => {
    stopped = true
    resolveForced()
  }
  const unsubscribe = ctx.io.onInterrupt(() => {
    interrupts++
    if (interrupts === 1) agent.abort('interrupted')
    else forceStop()
  })
  // SIGTERM (timeout, a CI job cancelled, docker stop, kill) ends the turn as Ctrl+C does — aborted,
  // the delivered part kept, the log closed and flushed — instead of dying with the turn left open.
  // It is listened to until the session is left: one while the run waits for background children
  // (or a parent) stops that wait, so they are aborted and closed in their logs too.
  // Only a second SIGTERM stops waiting: one after a Ctrl+C is a supervisor asking to stop (it
  // cannot know of the Ctrl+C), and the graceful stop under way is what it asks for — forcing it
  // would cut the session's close short. A Ctrl+C after either is a person's second signal.
  // SIGHUP (the terminal closed, an SSH connection dropped) is the same stop, as `aborted (hangup)`.
  let terminated: StopSignal | undefined
  let stopLeaving: () => void = () => {}
  const leavingStopped = new Promise<void>((resolve) => (stopLeaving = resolve))
  const terminate = (signal: StopSignal): void => {
    const again = terminated !== undefined
    terminated ??= signal
    interrupts++
    stopLeaving()
    if (interrupts === 1) agent.abort(STOP_SIGNALS[signal].reason)
    else if (again) forceStop()
  }
  const stopListening = onStopSignal(terminate)
  try {
    try {
      agent.followup(message)
      const wait = {
        doing: `running the turn in session ${sessionId}`,
        message: `The turn in session ${sessionId} never finished: a plugin hook, a tool or the model adapter awaits something that can never happen (nothing is left running that could finish it). \`bosun log ${sessionId}\` shows how far it got.`,
      }
      await during(wait, () => Promise.race([agent.whenIdle(), forced]))
    } finally {
      unsubscribe()
      http?.stop()
    }
    if (stopped) return stoppedWaiting(ctx, 'the turn to end', terminated)
    // A child's parents are let finish the turn its settlement started before they close, and the
    // session's background children their work (each settlement runs a turn here) — unless Ctrl+C
    // or SIGTERM, now or while it waits; a second SIGTERM stops waiting for them to close.
    const left = await Promise.race([leaveSession(ctx, opened, interrupts > 0, store, leavingStopped).then(() => true), forced.then(() => false)])
    if (!left) return stoppedWaiting(ctx, 'the session to close', terminated)
    await store.close()
  } finally {
    stopListening()
  }
  const abortedCode = terminated ? STOP_SIGNALS[terminated].exitCode : ExitCode.aborted

  const s = ctx.err.style
  if (reason === undefined) {
    // The message never reached a turn: aborted before it opened, or an earlier turn stopped the driver.
    const pending = agent.inbox.find(message.id) !== undefined
    if (interrupts > 0) {
      ctx.err.line(s.yellow(`aborted before the turn started${pending ? `; the message stays queued in session ${sessionId}` : ''}`))
      return abortedCode
    }
    errorLine(ctx, `${s.red('error')}: the message did not run${pending ? ` (it is still queued in session ${sessionId})` : ''}; \`bosun log ${sessionId}\` shows why.`)
    return ExitCode.error
  }
  reportEnd(ctx, safeValue(reason))
  const hint = reason.kind === 'error' ? retryHint(reason.error, namesRetryPlugin(configPlugins(cfg))) : undefined
  if (hint !== undefined) errorLine(ctx, s.dim(hint))
  if (http !== undefined && reason.kind === 'error') debugRequests(ctx, http.take())
  ctx.err.line(s.dim(`session ${sessionId}`))
  // A SIGTERM that came as the turn ended, or after, still cut what it left running (background
  // children aborted, not waited for): 143 too (129 for SIGHUP).
  return terminated ? STOP_SIGNALS[terminated].exitCode : exitCodeFor(reason)
}

/** A second signal stopped the wait for `what`. */
function stoppedWaiting(ctx: CommandContext, what: string, terminated: StopSignal | undefined): number {
  ctx.err.line(ctx.err.style.yellow(`aborted: stopped waiting for ${what}`))
  return terminated ? STOP_SIGNALS[terminated].exitCode : ExitCode.aborted
}

/**
 * A stderr line that can be long (an error's message, a block's reason): word-wrapped on a
 * terminal, its further rows indented under it, as `bosun log` does — the terminal cut it
 * mid-word and ran the rest on at the left edge. Piped, it stays one whole line.
 */
function errorLine(ctx: CommandContext, text: string): void {
  for (const row of terminalRows([text], ctx.err.columns)) ctx.err.line(row)
}

/** The final reason, on stderr, for a turn that did not simply complete (`reason` made safe to print). */
function reportEnd(ctx: CommandContext, reason: TurnEndReason): void {
  const s = ctx.err.style
  switch (reason.kind) {
    case 'blocked':
      errorLine(ctx, `${s.yellow(`blocked by ${reason.by}`)}: ${blockedNote(reason.by, reason.metadata)}`)
      break
    case 'error':
      errorLine(ctx, `${s.red(`error ${reason.error.code}`)}: ${reason.error.message}${providerWaitNote(reason.error, Date.now())}`)
      break
    case 'aborted':
      ctx.err.line(s.yellow(`aborted${reason.reason ? ` (${reason.reason})` : ''}`))
      break
    case 'max-tokens':
      ctx.err.line(s.yellow('warning: the answer was cut at the model\'s output limit (max-tokens)'))
      break
    case 'interrupted':
      ctx.err.line(s.red('interrupted'))
      break
  }
}

/** `--debug` on a failed turn: each HTTP request the adapter made (URL without query or key), its status and time. */
export function debugRequests(ctx: CommandContext, exchanges: readonly HttpExchange[]): void {
  const s = ctx.err.style
  if (exchanges.length === 0) return ctx.err.line(s.dim('debug: the turn made no HTTP request'))
  for (const exchange of exchanges) ctx.err.line(s.dim(safeText(`debug: ${describeExchange(exchange)}`)))
}
