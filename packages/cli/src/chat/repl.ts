import { createInterface } from 'node:readline'
import { whenAgentClosed, type Agent, type SessionEvent, type Store } from '@bosun/core'
import type { CommandContext } from '../context.js'
import { ExitCode } from '../exit-codes.js'
import { recordHttp } from '../http-debug.js'
import { leaveSession } from '../leave-session.js'
import { childClosed, reopenChild, type OpenedSession } from '../open-session.js'
import { oneLine } from '../output.js'
import { safeText } from '../terminal-safe.js'
import { PlainScreen, LiveScreen, type Screen } from './screen.js'
import { completeSlash, runSlashCommand } from './slash-commands.js'
import { liveLines } from './status-line.js'
import { attachTranscript, type TurnProgress } from './transcript.js'
import { recoveryNote } from '../recovery-note.js'
import { reasonLabel } from '../session-info.js'
import { onStopSignal, STOP_SIGNALS, type StopSignal } from '../stop-signals.js'

export interface ReplOptions {
  /** The session's agent, and for a subagent child the parents it was opened through (closed on leaving). */
  opened: OpenedSession
  store: Store
  sessionId: string
  /** For the status line: `scripted`, `openai gpt-4o-mini`. */
  model: string
  /** For the banner: `.bosun/sessions (JSONL)`. */
  storeLabel: string
  /** The session existed before this chat. */
  resumed: boolean
  /** `--raw`: answers as the model wrote them; otherwise a terminal renders their Markdown. */
  raw?: boolean
  /** The store keeps nothing past the process (`"store": "memory"`): leaving says the session is gone, not how to resume it. */
  inMemory?: boolean
  /** The config names the retry plugin: a turn failed on a 429 or 5xx is then not followed by the hint to add it. */
  retryPlugin?: boolean
}

/**
 * The interactive loop of `bosun chat` / `bosun resume`. On a terminal: a live area (queued
 * messages, status line, prompt) under a growing transcript; a line typed while the agent works
 * is queued as a follow-up; Ctrl+C aborts the running turn (queued messages are kept), a second
 * Ctrl+C or Ctrl+D leaves. Off a terminal (piped input), lines are queued as they come and the
 * chat leaves once the input ends and the queue has run.
 */
export async function runRepl(ctx: CommandContext, options: ReplOptions): Promise<number> {
  const { sessionId } = options
  // A one-shot child's parent closes it once it settled: the next message opens it anew (below).
  let opened = options.opened
  let agent = opened.agent
  const { io, out } = ctx
  const s = out.style
  // A dumb terminal (TERM=dumb: Emacs' M-x shell, some CI consoles) cannot move the cursor: the
  // live area's redraws would show as escape codes there, so it gets the plain chat, as a pipe does.
  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true && io.env.TERM !== 'dumb'
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal, prompt: s.bold('› '), historySize: 200, completer: completeSlash })
  // A terminal that hung up (its window closed) fails readline's last mode switch with EIO: the
  // chat is leaving by then (SIGHUP, or the input's end), so that is no crash. Anything else is.
  rl.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EIO') throw error
  })
  let hint: string | undefined
  let armed = false
  let progress: TurnProgress = { waitingSince: undefined, usage: undefined }
  const screen: Screen = terminal
    ? new LiveScreen(rl, io.stdout, () =>
        liveLines({
          status: agent.status, turn: agent.turn, model: options.model, nextTurn: agent.inbox.nextTurn, nextStep: agent.inbox.nextStep, hint,
          waitingSince: progress.waitingSince, usage: progress.usage,
        }, s),
      )
    : new PlainScreen(io.stdout)

  banner(ctx, screen, options)
  // A pipe gets the answer exactly, as with `bosun run`; a terminal gets it made safe.
  const http = ctx.debug ? recordHttp() : undefined
  let closing = false
  let leaving = false
  const follow = (next: Agent) => {
    progress = attachTranscript(next, screen, s, { exactAnswer: io.stdout.isTTY !== true, spinner: terminal, markdown: terminal && options.raw !== true, retryPlugin: options.retryPlugin === true, ...(http ? { http } : {}) })
    if (opened.parents.length === 0) return
    void whenAgentClosed(next).then(() => {
      if (leaving || next !== agent) return
      screen.print(s.dim('its parent closed this one-shot child once it settled; your next message opens it again through the parent'))
      screen.refresh()
    })
  }
  follow(agent)
  screen.refresh()
  let reopening: Promise<void> | undefined
  /** Resolves once a child its parent closed is open again (undefined while the agent is open). */
  const reopened = (): Promise<void> | undefined => {
    if (reopening || !childClosed(options.store, opened)) return reopening
    return (reopening = reopenChild(options.store, opened)
      .then((again) => {
        if (again === undefined) return
        opened = again
        agent = again.agent
        follow(agent)
      }, (error: unknown) => screen.print(`${s.red('error')}: ${safeText(error instanceof Error ? error.message : String(error))}`))
      .finally(() => (reopening = undefined)))
  }
  const send = (text: string) => {
    try {
      agent.followup(text)
      // After SIGTERM (a line that waited for its child to open again): queued, not run — an abort
      // right after the waking send parks it, as what is queued stays queued for the next open.
      if (terminated) agent.abort(STOP_SIGNALS[terminated].reason)
    } catch (error) {
      screen.print(`${s.red('error')}: ${safeText(error instanceof Error ? error.message : String(error))}`)
    }
    screen.refresh()
  }
  const done = new Promise<void>((resolve) => rl.once('close', resolve))
  /** Aborted with the agent by Ctrl+C or SIGTERM while a slash command runs: a /compact then says it stopped. */
  let command: AbortController | undefined
  /**
   * Stops the running turn, else a slash command's maintenance (a /compact's model call: the status
   * says idle). A /compact behind a running turn waits for it: Ctrl+C leaves it to run once the
   * turn ended, SIGTERM (`all`) cancels it too.
   */
  const stopWork = (reason: string, all = false): void => {
    if (all || agent.status !== 'running') command?.abort(reason)
    agent.abort(reason)
  }
  const interrupt = () => {
    if (closing) return
    if (agent.status === 'running' || (command !== undefined && !command.signal.aborted)) {
      stopWork('interrupted')
      armed = true
      hint = 'Ctrl+C again exits'
    } else if (armed) {
      closing = true
      rl.close()
      return
    } else {
      armed = true
      hint = 'Ctrl+C again or Ctrl+D exits'
    }
    screen.refresh()
  }
  rl.on('SIGINT', interrupt)
  const unsubscribe = terminal ? () => {} : io.onInterrupt(interrupt)
  // SIGTERM (timeout, docker stop, a cancelled CI job) leaves as `bosun run` does: the running turn
  // aborted (`terminated`) and closed in the log, what is queued left queued, exit 143 — instead
  // of Node's default, which killed the process with the turn left open. A second one stops waiting.
  // SIGHUP (the terminal window closed, an SSH connection dropped) leaves the same way, exit 129.
  let terminated: StopSignal | undefined
  let stoppedWaiting = false
  let forceStop: () => void = () => {}
  const forced = new Promise<void>((resolve) => (forceStop = resolve))
  const terminate = (signal: StopSignal) => {
    if (terminated) {
      stoppedWaiting = true
      return forceStop()
    }
    terminated = signal
    // The running turn, or a /compact's model call (maintenance: the status says idle); a no-op when idle.
    stopWork(STOP_SIGNALS[signal].reason, true)
    closing = true
    rl.close()
  }
  const stopListening = onStopSignal(terminate)
  let pendingCommand = Promise.resolve()

  rl.on('line', (line) => {
    screen.submitted(line)
    armed = false
    hint = undefined
    const text = line.trim()
    if (text.startsWith('/')) {
      // Commands run one after another, in the order typed; typing goes on meanwhile.
      pendingCommand = pendingCommand.then(async () => {
        const running = (command = new AbortController())
        try {
          if ((await runSlashCommand(text, { agent, store: options.store, screen, style: s, sessionId, signal: running.signal })) === 'exit') {
            closing = true
            rl.close()
          }
        } finally {
          command = undefined
        }
        screen.refresh()
      })
    } else if (text !== '') {
      const wait = reopened()
      if (wait) void wait.then(() => send(text))
      else send(text)
    } else if (agent.status === 'idle' && agent.inbox.hasPending) {
      agent.wake() // Enter on an empty line runs what is still queued (after Ctrl+C, or from before a resume)
    }
    screen.refresh()
  })
  if (terminal) io.stdout.on('resize', () => screen.refresh())

  await done
  leaving = true
  try {
    await Promise.race([pendingCommand, forced])
    screen.close()
    // Input that ended (a pipe) lets the queue run; Ctrl+D / /exit on a terminal leaves now. Ctrl+C
    // and SIGTERM are still listened to meanwhile: they abort the turn that runs then.
    if (!terminal && !closing) {
      // A child opening again (its plugins' setups) is waited for as a turn is: a second SIGTERM stops.
      await Promise.race([reopening, forced])
      await Promise.race([agent.whenIdle(), forced])
    }
    await Promise.race([leaveSession(ctx, opened, true, options.store), forced])
  } finally {
    unsubscribe()
    stopListening()
  }
  http?.stop()
  if (stoppedWaiting) {
    ctx.err.line(ctx.err.style.yellow('aborted: stopped waiting for the turn to end'))
    return STOP_SIGNALS[terminated ?? 'SIGTERM'].exitCode
  }
  // Through the screen: on a terminal it is word-wrapped, so the id to copy is not cut in two.
  // A memory store kept nothing to resume: `bosun resume` and `bosun log` would answer NO_PERSISTENT_STORE.
  screen.print(s.dim(options.inMemory === true
    ? `session ${sessionId} ended and is gone: the config keeps sessions in memory ("store": "memory"); name a store, e.g. "store": ["store-jsonl", { "dir": ".bosun/sessions" }], to keep them`
    : `session ${sessionId} saved · continue it with \`bosun resume ${sessionId}\` · \`bosun log ${sessionId}\` shows it`))
  return terminated ? STOP_SIGNALS[terminated].exitCode : ExitCode.ok
}

function banner(ctx: CommandContext, screen: Screen, options: ReplOptions): void {
  const s = ctx.out.style
  const { agent } = options.opened
  const state = options.resumed ? `resumed, ${agent.turn} turn${agent.turn === 1 ? '' : 's'}` : 'new'
  screen.print(`${s.bold('bosun chat')} ${s.dim('·')} session ${s.bold(options.sessionId)} ${s.dim(`(${state})`)} ${s.dim('·')} ${options.model} ${s.dim('·')} ${options.storeLabel}`)
  screen.print(s.dim('/help lists the commands · Ctrl+C aborts a turn · Ctrl+D exits'))
  const recovered = recoveryNote(agent)
  if (recovered !== undefined) screen.print(s.yellow(recovered))
  const pending = agent.inbox.nextTurn.length + agent.inbox.nextStep.length
  if (pending > 0) {
    screen.print(s.yellow(`${pending} message${pending === 1 ? ' is' : 's are'} still queued from before: Enter runs ${pending === 1 ? 'it' : 'them'}, or ${pending === 1 ? 'it runs' : 'they run'} before your next message (/queue, /drop <n>).`))
  }
  if (options.resumed) {
    const last = [...agent.session.events].reverse().find((event) => event.type === 'assistant/message')
    const text = last ? (last.data as { message: { content: { type: string; text?: string }[] } }).message.content.find((b) => b.type === 'text')?.text : undefined
    if (text) screen.print(s.dim(`last answer: ${oneLine(safeText(text), 160)}`))
    // The last answer may be an earlier turn's: a last turn that was blocked or failed left its
    // message unanswered, and the banner read as if that answer were the reply to it.
    const end = [...agent.session.events].reverse().find((event) => event.type === 'turn/end') as SessionEvent<'turn/end'> | undefined
    const reason = end?.data.reason
    if (recovered === undefined && reason !== undefined && reason.kind !== 'completed' && reason.kind !== 'max-tokens') {
      screen.print(s.yellow(`the last turn (${end!.data.turn}) did not complete: ${safeText(reasonLabel(reason))}. \`bosun log ${options.sessionId}\` shows why.`))
    }
  }
}
