import { BosunError, ErrorCodes, removeSession, type Store } from '@bosun/core'
import { describeStore, loadCliConfig, requirePersistentStore, withStore } from '../agent.js'
import type { CommandContext } from '../context.js'
import { CliErrorCodes, cliError } from '../errors.js'
import { ExitCode } from '../exit-codes.js'
import { confirm } from '../marketplace/confirm.js'
import { checkSessionId } from '../session-id.js'
import { sessionNotFound } from '../session-not-found.js'
import { treeOrder, type TreeNode } from '../session-tree.js'
import { safeJson, safeText } from '../terminal-safe.js'

/** One session named on the command line, with the subagent descendants that go with it (tree order, itself first). */
interface Removal { id: string; sessions: { id: string; level: number }[] }

/**
 * `bosun sessions rm <id...> [--yes] [--json]`: removes stored sessions for good, each with its
 * subagent children (core's `removeSession`). Every id is checked before anything goes: unknown
 * (with the stored id nearest to it), a child whose parent is still stored (CHILD_SESSION: its
 * parent would make it again on recovery). On a terminal it lists what will go and asks; without
 * one it needs `--yes`, since nothing could answer.
 */
export async function sessionsRemoveCommand(ctx: CommandContext, ids: string[], options: { yes?: boolean; json?: boolean }): Promise<number> {
  for (const id of ids) checkSessionId(id)
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  requirePersistentStore(cfg)
  const where = describeStore(cfg, ctx.io.cwd)
  const removed: string[] = []
  await withStore(cfg, async (store) => {
    const removals = await plan(store, ids, where)
    const count = removals.reduce((sum, removal) => sum + removal.sessions.length, 0)
    if (!options.yes) {
      if (ctx.io.stdin.isTTY !== true) {
        throw cliError(CliErrorCodes.USAGE, `bosun sessions rm asks before it removes ${count === 1 ? 'a session' : `${count} sessions`}, and stdin is not a terminal to answer: pass --yes to remove ${removals.map((removal) => removal.id).join(', ')}${count > removals.length ? ' with its subagent children' : ''} without asking.`)
      }
      ctx.err.line(`This removes from ${where}, for good:`)
      for (const removal of removals) {
        for (const { id, level } of removal.sessions) ctx.err.line(level === 0 ? `  ${safeText(id)}` : `  ${'  '.repeat(level)}└ ${safeText(id)} (subagent child)`)
      }
      if (!(await confirm(ctx.io, count === 1 ? 'Remove it?' : `Remove these ${count} sessions?`))) {
        throw cliError(CliErrorCodes.NOT_CONFIRMED, 'Not confirmed: nothing was removed. Answer "y", or pass --yes.')
      }
    }
    try {
      for (const removal of removals) removed.push(...(await removeSession(store, removal.id)))
    } catch (error) {
      // Sessions named before the one refused are gone: said, so that no one looks for them.
      const partial = [...removed, ...removedBefore(error)]
      if (partial.length > 0) report(ctx, partial, where, options.json === true)
      throw explained(error)
    }
  })
  report(ctx, removed, where, options.json === true)
  return ExitCode.ok
}

/**
 * What goes for each id, from one list of the store: refuses an id it does not have and a child
 * whose parent it still has (unless that parent is named too: the child goes with it). An id
 * named twice, or under another one named, is removed once.
 */
async function plan(store: Store, ids: readonly string[], where: string): Promise<Removal[]> {
  const list = await store.list()
  const nodes: TreeNode[] = []
  for (const entry of list) {
    // The header's delegation, where the list does not give it.
    const delegation = entry.delegation !== undefined ? entry.delegation : (await store.header?.(entry.id))?.delegation
    nodes.push({ id: entry.id, ...(delegation ? { parentSessionId: delegation.parentSessionId } : {}) })
  }
  const byId = new Map(nodes.map((node) => [node.id, node]))
  const named = new Set(ids)
  for (const id of ids) {
    const node = byId.get(id)
    if (node === undefined) throw sessionNotFound(id, where, [...byId.keys()])
    if (node.parentSessionId !== undefined && byId.has(node.parentSessionId) && !underNamed(node, byId, named)) {
      throw new BosunError(
        ErrorCodes.CHILD_SESSION,
        `Session "${id}" is a subagent child of session "${node.parentSessionId}", which is still stored: remove "${node.parentSessionId}" (\`bosun sessions rm ${node.parentSessionId}\`), which removes its children with it. Nothing was removed.`,
        { details: { sessionId: id, parentSessionId: node.parentSessionId } },
      )
    }
  }
  const rows = treeOrder(nodes)
  const removals: Removal[] = []
  const covered = new Set<string>()
  for (const id of ids) {
    if (covered.has(id)) continue
    const start = rows.findIndex((row) => row.node.id === id)
    const base = rows[start]!.level
    const sessions = [{ id, level: 0 }]
    for (let i = start + 1; i < rows.length && rows[i]!.level > base; i++) sessions.push({ id: rows[i]!.node.id, level: rows[i]!.level - base })
    for (const session of sessions) covered.add(session.id)
    removals.push({ id, sessions })
  }
  // A named id that turned out to be under one named after it: that one covers it.
  return removals.filter((removal) => !removals.some((other) => other !== removal && other.sessions.some((session) => session.id === removal.id && session.level > 0)))
}

/** Whether one of the sessions above `node` (its parent, its parent's parent…) is among those named. */
function underNamed(node: TreeNode, byId: ReadonlyMap<string, TreeNode>, named: ReadonlySet<string>): boolean {
  const seen = new Set<string>()
  for (let parent = node.parentSessionId; parent !== undefined && !seen.has(parent); parent = byId.get(parent)?.parentSessionId) {
    if (named.has(parent)) return true
    seen.add(parent)
  }
  return false
}

/** What went: the ids as JSON on stdout with `--json`, else a line on stderr. */
function report(ctx: CommandContext, removed: readonly string[], where: string, json: boolean): void {
  if (json) ctx.out.line(safeJson(JSON.stringify({ removed })))
  else if (removed.length === 0) ctx.err.line(`Nothing was removed: the sessions were no longer in ${where}.`)
  else ctx.err.line(`Removed ${removed.map((id) => safeText(id)).join(', ')} from ${where}.`)
}

/** The ids core's removeSession removed before a descendant was refused (its `details.removed`). */
function removedBefore(error: unknown): string[] {
  const removed = BosunError.is(error) ? (error.details as { removed?: unknown } | undefined)?.removed : undefined
  return Array.isArray(removed) ? removed.filter((id): id is string => typeof id === 'string') : []
}

/** A session open for writing elsewhere: who holds it, when the store says, and how to remove it anyway. */
function explained(error: unknown): unknown {
  if (!BosunError.is(error, ErrorCodes.SESSION_LOCKED)) return error
  const details = (error.details ?? {}) as { sessionId?: unknown; pid?: unknown; host?: unknown }
  const id = typeof details.sessionId === 'string' ? details.sessionId : undefined
  const holder = typeof details.pid === 'number' && typeof details.host === 'string' ? `process ${details.pid} on ${details.host}` : undefined
  const again = id === undefined ? 'run bosun sessions rm again' : `run \`bosun sessions rm ${id}\` again`
  const message = holder === undefined
    ? `${error.message} Stop it there, then ${again}.`
    : `Session "${id ?? '?'}" is open for writing in ${holder}: stop what runs it there (a \`bosun chat\`, a \`bosun serve\`) and ${again} — or remove it through that host (the web UI's Remove, \`DELETE /v1/sessions/${id ?? '<id>'}\`).`
  return new BosunError(ErrorCodes.SESSION_LOCKED, message, { cause: error, details: error.details ?? {} })
}
