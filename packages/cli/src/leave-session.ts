import type { Agent } from '@bosun/core'
import type { CommandContext } from './context.js'
import { topAgent, type OpenedSession } from './open-session.js'
import { during } from './stall.js'
import { safeText } from './terminal-safe.js'

/**
 * Leaves a session the CLI opened. Its own agent is closed (which aborts a running turn). A child
 * opened through its parent is borrowed, so the CLI closes the top parent it opened, which closes
 * its children first — but only once the child and its parents are idle: the child's settled turn
 * reaches its parent as a message, on which an idle parent runs a turn, and a clean exit should
 * not cut that turn and leave it to crash recovery. While a parent works, stderr says so and how to
 * see it; Ctrl+C stops waiting, and the parent's turn then ends `aborted` as it closes (logged
 * like any aborted turn: the settlement is in its log either way).
 *
 * @param abort stop the child's running turn first (leaving a chat on a terminal leaves now).
 */
export async function leaveSession(ctx: CommandContext, opened: OpenedSession, abort: boolean): Promise<void> {
  if (opened.parents.length === 0) return opened.agent.close()
  if (abort) opened.agent.abort('closed')
  await untilQuiet(ctx, opened)
  await topAgent(opened).close()
}

/** Waits until the child and each of its parents are idle at once (a parent's turn may wake the child again), or until Ctrl+C. */
async function untilQuiet(ctx: CommandContext, { agent, parents }: OpenedSession): Promise<void> {
  const agents = [agent, ...parents]
  let stop!: () => void
  const stopped = new Promise<'stopped'>((resolve) => (stop = () => resolve('stopped')))
  const unsubscribe = ctx.io.onInterrupt(() => stop())
  let told = false
  try {
    for (;;) {
      const busy = parents.find((parent) => parent.status !== 'idle')
      if (busy && !told) {
        told = true
        const id = busy.session.header.id
        ctx.err.line(ctx.err.style.dim(safeText(`waiting for the parent session ${id}: it is running a turn on what this session settled · Ctrl+C stops waiting (its turn is aborted) · \`bosun log ${id}\` shows it`)))
      }
      const wait = {
        doing: `waiting for the parent session ${parents[0]!.session.header.id} to be idle`,
        message: `The parent session ${parents[0]!.session.header.id} never became idle: a plugin hook, a tool or the model adapter awaits something that can never happen. \`bosun log ${parents[0]!.session.header.id}\` shows how far it got.`,
      }
      const outcome = await during(wait, () => Promise.race([Promise.all(agents.map((each) => each.whenIdle())), stopped]))
      if (outcome === 'stopped') {
        ctx.err.line(ctx.err.style.yellow('stopped waiting: the parent\'s turn is aborted as it closes'))
        return
      }
      if (agents.every(isIdle)) return
    }
  } finally {
    unsubscribe()
  }
}

const isIdle = (agent: Agent): boolean => agent.status === 'idle'
