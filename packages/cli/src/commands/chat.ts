import { configPlugins, describeStore, loadCliConfig, modelLabel, openStore, requireSession, sessionExists, storeKind } from '../agent.js'
import { runRepl } from '../chat/repl.js'
import type { CommandContext } from '../context.js'
import { openSessionAgent } from '../open-session.js'
import { namesRetryPlugin } from '../retry-hint.js'
import { checkSessionId, newSessionId } from '../session-id.js'

/** `bosun chat [--session <id>]`: an interactive chat on a new session (or on `--session`, created if missing). */
export async function chatCommand(ctx: CommandContext, options: { session?: string; raw?: boolean }): Promise<number> {
  const sessionId = options.session === undefined ? newSessionId() : checkSessionId(options.session)
  return startChat(ctx, sessionId, false, options.raw === true)
}

/**
 * Opens the config's store and agent on `sessionId` and runs the chat; `mustExist` refuses an
 * unknown id; `raw` prints answers without rendering their Markdown.
 */
export async function startChat(ctx: CommandContext, sessionId: string, mustExist: boolean, raw = false): Promise<number> {
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const store = await openStore(cfg)
  try {
    if (mustExist) await requireSession(cfg, store, sessionId, ctx.io.cwd)
    const resumed = mustExist || (await sessionExists(store, sessionId))
    // A subagent's child is opened through its parent (one stderr line says so): see open-session.ts.
    const opened = await openSessionAgent(cfg, store, sessionId, (line) => ctx.err.line(ctx.err.style.dim(line)))
    const inMemory = storeKind(cfg).kind === 'memory'
    if (inMemory) ctx.err.line(ctx.err.style.yellow('note: the config keeps sessions in memory; this chat is gone when you leave'))
    const model = opened.parents.length === 0 ? modelLabel(cfg) : `subagent${opened.profile === undefined ? '' : ` ${opened.profile}`}`
    return await runRepl(ctx, { opened, store, sessionId, model, storeLabel: describeStore(cfg, ctx.io.cwd), resumed, raw, inMemory, retryPlugin: namesRetryPlugin(configPlugins(cfg)) })
  } finally {
    await store.close()
  }
}
