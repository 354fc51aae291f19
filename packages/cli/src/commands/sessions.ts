import { forkSession, messageText, type Delegation } from '@bosun/core'
import { loadCliConfig, openReader, readSession, requirePersistentStore, requireSession, withStore } from '../agent.js'
import type { CommandContext } from '../context.js'
import { ExitCode } from '../exit-codes.js'
import { oneLine } from '../output.js'
import { formatShortTime, formatTime, reasonLabel, sessionInfo, type SessionInfo } from '../session-info.js'
import { listSessions, skipReason, type ListedSession } from '../session-list.js'
import { checkSessionId, newSessionId } from '../session-id.js'
import { treeOrder, type TreeRow } from '../session-tree.js'
import { table } from '../table.js'
import { safeJson, safeText } from '../terminal-safe.js'

/**
 * `bosun sessions list`: id, the session a fork was forked from, created, turns, last activity and
 * first prompt of each session, oldest first (from the store's summaries where it keeps them, else from each log: session-list.ts).
 * `--tree`: subagents' children nested under their parents (from the headers' `delegation`, read
 * without opening any session for writing).
 */
export async function sessionsListCommand(ctx: CommandContext, options: { json?: boolean; tree?: boolean }): Promise<number> {
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const reader = await openReader(cfg)
  let infos: ListedSession[]
  try {
    // One damaged session must not hide the others; `bosun log <id>` shows what is wrong with it.
    infos = await listSessions(reader, (id, error) => ctx.err.line(ctx.err.style.yellow(safeText(`skipped ${id}: ${skipReason(error)}`))))
  } finally {
    await reader.close()
  }
  infos.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
  const rows: TreeRow<ListedSession>[] = options.tree ? treeOrder(infos) : infos.map((node) => ({ node, level: 0 }))
  if (options.json) {
    for (const { node, level, note } of rows) {
      const { parentSessionId: _parent, ...rest } = node
      const tree = options.tree ? { level, ...(note ? { note } : {}) } : {}
      ctx.out.line(safeJson(JSON.stringify({ ...rest, ...tree })))
    }
    return ExitCode.ok
  }
  if (infos.length === 0) {
    ctx.err.line('No sessions yet. Start one with `bosun run "hello"` or `bosun chat`.')
    return ExitCode.ok
  }
  // A fork's `parent` (the session it was forked from, SPEC §2) in a column of its own, shown only
  // when a listed session is a fork: a store without forks keeps the table it had.
  const forks = infos.some((info) => info.parent !== undefined)
  const cells = rows.map(({ node: info, level, note }) => [
    // The id is checked by stores that follow assertSessionId; a custom store might not.
    options.tree ? treeId(info, level, note) : safeText(info.id),
    ...(forks ? [info.parent === undefined ? '' : safeText(info.parent)] : []),
    formatTime(info.createdAt),
    String(info.turns),
    formatTime(info.lastActivity),
    info.firstPrompt === undefined ? '' : oneLine(safeText(info.firstPrompt), 200),
  ])
  // A narrow terminal: the ids stay whole (to be copied) and the first prompt keeps room, so the
  // creation time goes first (a generated id begins with it), then the last activity's year and
  // seconds, then the last activity and the turns, and last a fork's parent. A pipe gets every column, always.
  const narrower = [
    { header: 'CREATED' },
    { header: 'LAST ACTIVITY', cells: rows.map(({ node }) => formatShortTime(node.lastActivity)) },
    { header: 'LAST ACTIVITY' },
    { header: 'TURNS' },
    { header: FORKED_FROM },
  ]
  const headers = ['ID', ...(forks ? [FORKED_FROM] : []), 'CREATED', 'TURNS', 'LAST ACTIVITY', 'FIRST PROMPT']
  for (const line of table(headers, cells, ctx.out.style, ctx.out.columns, 60, narrower)) ctx.out.line(line)
  return ExitCode.ok
}

/** The header of the column of a fork's parent in `sessions list`. */
const FORKED_FROM = 'FORKED FROM'

/** `  └ <id> (background)`: indented under its parent; a root that names a parent says why it is one. */
function treeId(info: ListedSession, level: number, note: TreeRow<ListedSession>['note']): string {
  const id = safeText(info.id)
  const kind = info.delegation ? ` (${info.delegation.mode === 'one-shot' ? 'foreground' : 'background'})` : ''
  if (level > 0) return `${'  '.repeat(level - 1)}└ ${id}${kind}`
  if (note === 'orphan') return `${id}${kind} (parent ${safeText(info.delegation!.parentSessionId)} not found)`
  if (note === 'cycle') return `${id}${kind} (its parents lead back to it)`
  return id
}

/** `bosun sessions show <id>`: the header, each turn with how it ended, and what is still queued. */
export async function sessionsShowCommand(ctx: CommandContext, id: string, options: { json?: boolean }): Promise<number> {
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const reader = await openReader(cfg)
  let info: SessionInfo
  let delegation: Delegation | undefined
  try {
    const log = await readSession(cfg, reader, id, ctx.io.cwd)
    info = sessionInfo(log)
    delegation = log.header.delegation
  } finally {
    await reader.close()
  }
  if (options.json) {
    const pending = { nextTurn: info.pending.nextTurn.map(messageText), nextStep: info.pending.nextStep.map(messageText) }
    ctx.out.line(safeJson(JSON.stringify({ ...info, ...(delegation ? { delegation } : {}), pending })))
    return ExitCode.ok
  }
  const s = ctx.out.style
  const field = (name: string, value: string) => ctx.out.line(`${s.bold(name.padEnd(9))}${value}`)
  const shownId = safeText(info.id)
  field('session', shownId)
  field('created', formatTime(info.createdAt))
  if (info.parent) field('parent', `${safeText(info.parent)} (its first ${info.seedLength - 1} events are the parent's)`)
  // A subagent's child: who spawned it and how (`bosun log <parent>` shows the spawn).
  if (delegation) field('spawned', `by ${safeText(delegation.parentSessionId)} · ${delegation.mode === 'one-shot' ? 'foreground' : 'background'} · depth ${delegation.depth} · call ${safeText(delegation.callId)}`)
  field('events', String(info.events))
  field('turns', String(info.turns))
  field('last', formatTime(info.lastActivity))
  const pendingCount = info.pending.nextTurn.length + info.pending.nextStep.length
  field('pending', pendingCount === 0 ? 'nothing queued' : `${info.pending.nextTurn.length} queued, ${info.pending.nextStep.length} for the next step`)
  let n = 0
  const excerpt = (message: Parameters<typeof messageText>[0], max: number) => oneLine(safeText(messageText(message)), max)
  for (const message of info.pending.nextTurn) ctx.out.line(`  ${++n}. ${excerpt(message, 100)}`)
  for (const message of info.pending.nextStep) ctx.out.line(`  ${++n}. ${s.dim('(next step)')} ${excerpt(message, 100)}`)
  if (info.turnList.length > 0) {
    ctx.out.line()
    const rows = info.turnList.map((turn) => [String(turn.turn), safeText(reasonLabel(turn.reason)), formatTime(turn.startedAt), oneLine(safeText(turn.prompt ?? ''), 200)])
    // A narrow terminal: the start time loses its year and seconds, then goes (as in `list`).
    const narrower = [{ header: 'STARTED', cells: info.turnList.map((turn) => formatShortTime(turn.startedAt)) }, { header: 'STARTED' }]
    for (const line of table(['TURN', 'ENDED', 'STARTED', 'PROMPT'], rows, s, ctx.out.columns, 60, narrower)) ctx.out.line(line)
  }
  ctx.out.line()
  ctx.out.line(s.dim(`bosun log ${shownId}    the full timeline`))
  ctx.out.line(s.dim(`bosun resume ${shownId} chat on it`))
  return ExitCode.ok
}

/** `bosun sessions fork <id> [--at-turn N] [--id new]`: a new session seeded with a completed-turn prefix. */
export async function sessionsForkCommand(ctx: CommandContext, id: string, options: { atTurn?: number; id?: string }): Promise<number> {
  checkSessionId(id)
  const childId = options.id === undefined ? newSessionId() : checkSessionId(options.id)
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  requirePersistentStore(cfg)
  const child = await withStore(cfg, async (store) => {
    await requireSession(cfg, store, id, ctx.io.cwd)
    const forked = await forkSession(store, id, { id: childId, ...(options.atTurn === undefined ? {} : { afterTurn: options.atTurn }) })
    await forked.writer.close()
    return forked
  })
  const lastEnd = child.events.findLast((event) => event.type === 'turn/end')
  const after = lastEnd === undefined ? 'before its first turn' : `after turn ${(lastEnd.data as { turn: number }).turn}`
  ctx.out.line(child.header.id)
  ctx.err.line(ctx.err.style.dim(`forked ${id} ${after} as ${child.header.id}; continue it with \`bosun resume ${child.header.id}\``))
  return ExitCode.ok
}
