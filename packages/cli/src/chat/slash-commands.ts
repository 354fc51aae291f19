import { BosunError, ErrorCodes, forkSession, type Agent, type Store } from '@bosun/core'
import { oneLine, type Style } from '../output.js'
import { newSessionId } from '../session-id.js'
import { safeText } from '../terminal-safe.js'
import type { Screen } from './screen.js'
import { queuedItems } from './status-line.js'
import { messageOf } from '../errors.js'

/** What a slash command can reach. */
export interface SlashContext {
  agent: Agent
  store: Store
  screen: Screen
  style: Style
  sessionId: string
  /** Aborted when Ctrl+C or SIGTERM stopped what the command started (the agent aborted with it). */
  signal?: AbortSignal
}

/** The chat's commands, for `/help`. */
export const SLASH_HELP: readonly [string, string][] = [
  ['/steer <text>', 'steer the running turn: <text> lands in its next step (or starts a turn when idle)'],
  ['/queue', 'list the queued messages, numbered'],
  ['/drop <n>', 'remove queued message <n> before it runs'],
  ['/compact', 'compact the history now (needs a compaction plugin)'],
  ['/fork', 'fork this session at its last turn that ended (this chat stays here)'],
  ['/help', 'this list'],
  ['/exit', 'leave (as Ctrl+D does)'],
]

/** Every command name, aliases included, for Tab completion. */
const SLASH_NAMES = ['/steer', '/queue', '/drop', '/compact', '/fork', '/help', '/exit', '/quit']

/**
 * readline's `completer`: Tab on a line that is a `/` and the start of a command name completes it
 * (`/que` → `/queue `, or lists `/compact`, `/fork`… for `/`); any other line is left alone.
 */
export function completeSlash(line: string): [string[], string] {
  if (!/^\/\S*$/.test(line)) return [[], line]
  const hits = SLASH_NAMES.filter((name) => name.startsWith(line))
  return [hits.length === 1 ? [`${hits[0]} `] : hits, line]
}

/**
 * Runs one `/command`. Returns `'exit'` for `/exit`. A failure is printed as `error CODE:
 * message` in the transcript and never ends the chat.
 */
export async function runSlashCommand(input: string, ctx: SlashContext): Promise<'exit' | void> {
  const [name = '', ...words] = input.slice(1).split(/\s+/)
  const rest = input.slice(1 + name.length).trim()
  const { agent, screen, style } = ctx
  try {
    switch (name) {
      case 'steer':
        if (rest === '') return screen.print(style.yellow('usage: /steer <text>'))
        agent.steer(rest)
        return
      case 'queue':
        return printQueue(ctx)
      case 'drop':
        return drop(ctx, words[0])
      case 'compact': {
        // No plugin taps agent/compact: the core's NO_COMPACTION (printed below) is the whole
        // answer — a "compacting…" before it announced a start that never comes.
        if (agent.hooks.compact.taps.length === 0) return void (await agent.compact())
        screen.print(style.dim('  compacting…'))
        // It runs between turns: waited for here, so that a stop meanwhile (SIGTERM) cancels it
        // before its model call starts, rather than after the turn, with no one left to stop it.
        if (agent.status === 'running') await Promise.race([agent.whenIdle(), abortedPromise(ctx.signal)])
        if (ctx.signal?.aborted) return screen.print(style.yellow('  /compact stopped: the history is as it was'))
        const compacted = await agent.compact()
        if (compacted) return screen.print(style.dim('  ⇢ compacted'))
        // Aborted, it resolves false as when there is nothing to compact: the chat knows which.
        return screen.print(ctx.signal?.aborted ? style.yellow('  /compact stopped: the history is as it was') : style.dim('  nothing to compact'))
      }
      case 'fork':
        return await fork(ctx)
      case 'help':
      case '?':
        for (const [command, text] of SLASH_HELP) screen.print(`  ${style.bold(command.padEnd(14))} ${text}`)
        screen.print(style.dim('  Enter sends a message (queued while the agent works); on an empty line it runs what is queued'))
        screen.print(style.dim('  Ctrl+C aborts the turn (the queue is kept) or a /compact · a second Ctrl+C or Ctrl+D exits'))
        return
      case 'exit':
      case 'quit':
        return 'exit'
      default:
        screen.print(style.yellow(`unknown command /${name}: /help lists them`))
    }
  } catch (error) {
    const code = BosunError.is(error) ? error.code : 'UNEXPECTED'
    screen.print(`${style.red('error')} ${style.bold(code)}: ${safeText(messageOf(error))}`)
  }
}

/** Settles once `signal` aborts (never without one). */
function abortedPromise(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    signal?.addEventListener('abort', () => resolve(), { once: true })
  })
}

function printQueue({ agent, screen, style }: SlashContext): void {
  const items = queuedItems(agent.inbox.nextTurn, agent.inbox.nextStep)
  if (items.length === 0) return screen.print(style.dim('  nothing queued'))
  for (const item of items) screen.print(`  ${item.number}. ${style.dim(`${item.label}:`)} ${oneLine(item.text, 200)}`)
}

function drop({ agent, screen, style }: SlashContext, which: string | undefined): void {
  const items = queuedItems(agent.inbox.nextTurn, agent.inbox.nextStep)
  const number = Number(which)
  const item = Number.isSafeInteger(number) ? items[number - 1] : undefined
  if (item === undefined) {
    return screen.print(style.yellow(items.length === 0 ? 'nothing queued to drop' : `usage: /drop <n>, n from 1 to ${items.length} (/queue lists them)`))
  }
  try {
    agent.inbox.remove(item.message.id)
  } catch (error) {
    if (BosunError.is(error, ErrorCodes.MESSAGE_NOT_PENDING)) return screen.print(style.yellow(`too late: "${oneLine(item.text, 60)}" already started`))
    throw error
  }
  screen.print(style.dim(`  dropped ${item.number}: ${oneLine(item.text, 200)}`))
}

async function fork({ agent, store, screen, style, sessionId }: SlashContext): Promise<void> {
  if (agent.status === 'running') return screen.print(style.yellow('wait for the turn to end (or Ctrl+C it) before /fork'))
  await agent.session.flush()
  const child = await forkSession(store, sessionId, { id: newSessionId() })
  await child.writer.close()
  screen.print(`  forked as ${style.bold(child.header.id)} — \`bosun resume ${child.header.id}\` continues it; this chat stays on ${sessionId}`)
}
