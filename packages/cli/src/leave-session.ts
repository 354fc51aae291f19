import { liveAgents, type Agent, type Store } from '@bosun/core'
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
 * Unless `abort`, it also waits for the subagents' children the session runs in the background
 * (`bosun run`): closing would abort them, so their answers would never reach the session. Each
 * settlement runs a turn of its parent, and the wait lasts until the whole tree is idle at once;
 * stderr names the child it waits for, and Ctrl+C stops waiting. A child still working when the
 * session closes (a chat left on a terminal, a wait stopped) is named on stderr: it is aborted,
 * and its parent gets that settlement when it is next opened.
 *
 * @param abort stop the child's running turn first, and do not wait for background children
 *   (leaving a chat, or a `bosun run` interrupted with Ctrl+C, leaves now).
 * @param stop settles when the caller stops waiting as Ctrl+C does (SIGTERM, which has no
 *   default listener here: the caller keeps its own until the session is left).
 */
export async function leaveSession(ctx: CommandContext, opened: OpenedSession, abort: boolean, store: Store, stop?: Promise<unknown>): Promise<void> {
  if (abort && opened.parents.length > 0) opened.agent.abort('closed')
  if (opened.parents.length > 0 || !abort) await untilQuiet(ctx, opened, abort ? undefined : store, stop)
  const top = topAgent(opened)
  for (const child of descendants(store, top)) {
    if (child.status === 'idle') continue
    const id = child.session.header.id
    ctx.err.line(ctx.err.style.yellow(safeText(`stopped background agent ${id}: it was still working, and its turn ends aborted as its parent closes (its parent gets that settlement when it is next opened) · \`bosun log ${id}\` shows it`)))
  }
  await top.close()
}

/**
 * The live agents of `store` below `top` in the subagent tree (children, their children…), from
 * their headers' `delegation`. Only agents this process runs, so only the ones closing `top` stops.
 */
function descendants(store: Store, top: Agent): Agent[] {
  const live = liveAgents(store)
  const ids = new Set([top.session.header.id])
  const found: Agent[] = []
  for (let grew = true; grew; ) {
    grew = false
    for (const agent of live) {
      const id = agent.session.header.id
      const parent = agent.session.header.delegation?.parentSessionId
      if (parent === undefined || ids.has(id) || !ids.has(parent)) continue
      ids.add(id)
      found.push(agent)
      grew = true
    }
  }
  return found
}

/**
 * Waits until the child, each of its parents and — given `store` — every background child below
 * the top parent are idle at once (a parent's turn may wake a child again, and a settlement runs a
 * turn of its parent, which may spawn more), or until Ctrl+C or `stopWaiting` settles.
 */
async function untilQuiet(ctx: CommandContext, opened: OpenedSession, store: Store | undefined, stopWaiting?: Promise<unknown>): Promise<void> {
  const { agent, parents } = opened
  let stop!: () => void
  const stopped = new Promise<'stopped'>((resolve) => (stop = () => resolve('stopped')))
  const unsubscribe = ctx.io.onInterrupt(() => stop())
  void stopWaiting?.then(() => stop())
  const told = new Set<string>()
  const tell = (id: string, line: string) => {
    if (told.has(id)) return
    told.add(id)
    ctx.err.line(ctx.err.style.dim(safeText(line)))
  }
  try {
    for (;;) {
      const children = store === undefined ? [] : descendants(store, topAgent(opened))
      const agents = [agent, ...parents, ...children]
      if (agents.every(isIdle)) return
      const parent = parents.find((each) => !isIdle(each))
      if (parent) {
        const id = parent.session.header.id
        tell(id, `waiting for the parent session ${id}: it is running a turn on what this session settled · Ctrl+C stops waiting (its turn is aborted) · \`bosun log ${id}\` shows it`)
      }
      for (const child of children.filter((each) => !isIdle(each))) {
        const id = child.session.header.id
        tell(id, `waiting for background agent ${id}: its answer goes to session ${child.session.header.delegation!.parentSessionId} · Ctrl+C stops waiting (it is aborted) · \`bosun log ${id}\` shows it`)
      }
      const busy = agents.find((each) => !isIdle(each))!.session.header.id
      const wait = {
        doing: `waiting for session ${busy} to be idle`,
        message: `The session ${busy} never became idle: a plugin hook, a tool or the model adapter awaits something that can never happen. \`bosun log ${busy}\` shows how far it got.`,
      }
      const outcome = await during(wait, () => Promise.race([Promise.all(agents.map((each) => each.whenIdle())), stopped]))
      if (outcome === 'stopped') {
        ctx.err.line(ctx.err.style.yellow(parents.length > 0 ? 'stopped waiting: the parent\'s turn is aborted as it closes' : 'stopped waiting: what still runs is aborted as the session closes'))
        return
      }
    }
  } finally {
    unsubscribe()
  }
}

const isIdle = (agent: Agent): boolean => agent.status === 'idle'
