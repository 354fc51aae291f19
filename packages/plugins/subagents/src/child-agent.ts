import { borrowOrOpen, createAgent, definePlugin, type Agent, type Plugin, type PluginContext, type PluginEntry, type Tool } from '@bosun/core'
import { newChildSession, type ChildSpec } from './child-session.js'
import { ChildFold } from './fold.js'
import type { Options } from './options.js'
import { splitEntry } from './profile-tools.js'
import { SUBAGENT_TOOL_NAMES } from './tools.js'

/** A child this agent has open: its agent, and its settlements folded as its events are appended. */
export interface Child {
  id: string
  agent: Agent
  mode: 'foreground' | 'background'
  profile?: string
  /** The child's log folded so far (fed by its event hook): its settlements and whether it ends settled. */
  fold: ChildFold
  /** A foreground tool call is waiting for this child: it delivers the answer, not a message. */
  awaited: boolean
  /** Canceled with the parent: its next settlement is queued in the parent without waking it. */
  quiet: boolean
  /**
   * The agent was already open in this process (the host opened the child's session, e.g. because
   * a user sent to it) and is borrowed: this agent uses it, never closes it — it lets go instead.
   */
  borrowed: boolean
  /** Set once its close started (the close itself, to be awaited by whoever closes the parent; resolved at once for a borrowed child). */
  closing?: Promise<void>
  waiters: Set<() => void>
}

/**
 * Builds a child's agent on its stored session: from the parent's resolved config, or from a
 * profile (its system prompt, a fresh adapter from its model entry, only the tools it names —
 * whether the parent's own or added by a plugin; the subagent tools always). With `create`, the
 * child's session is new (a spawn, or recovery adopting a child a crash left unmade): built from
 * the spec and stored once the child's plugin setups passed, so a refused child leaves none. A
 * child session this process already runs (the host opened it) is borrowed instead: a second agent
 * on it would be a second writer. `signal` gives the build up (`OPEN_ABORTED`): the parent closing.
 */
export async function openChildAgent(ctx: PluginContext, options: Options, childId: string, profileName: string | undefined, resume: boolean, signal: AbortSignal, create?: ChildSpec): Promise<{ agent: Agent; fold: ChildFold; borrowed: boolean }> {
  const { config } = ctx
  const profile = profileName === undefined ? undefined : options.agents?.[profileName]
  const allowed = profile?.tools ? new Set([...profile.tools, ...SUBAGENT_TOOL_NAMES]) : undefined
  const { agent, borrowed } = await borrowOrOpen(ctx.store, childId, async () => createAgent({
    model: profile?.model ? await ctx.createModel(profile.model) : config.model,
    store: ctx.store, sessionId: childId, system: profile?.system ?? config.system,
    tools: allowed ? config.tools.filter((tool: Tool) => allowed.has(tool.name)) : config.tools,
    plugins: allowed ? onlyTools(config.plugins, allowed) : config.plugins,
    maxParallelTools: config.maxParallelTools, now: ctx.now, signal,
    // The parent's sealing of idle logs (off, or tuned) holds for its children too.
    ...(config.logPages === undefined ? {} : { logPages: config.logPages }),
    // A new child's session is staged like any new session: stored only once its setups passed.
    ...(create ? { newSession: () => newChildSession(ctx, create) } : {}),
  }))
  // Folded from what is stored, then fed each appended event: no event can fall between (both synchronous).
  const fold = new ChildFold(resume)
  const { events, header } = agent.session
  for (let i = header.seedLength ?? 0; i < events.length; i++) fold.add(events[i]!)
  agent.hooks.event.tap(ctx.name, (event) => fold.add(event))
  return { agent, fold, borrowed }
}

/** Kept per plugin and allowlist, so that opening many children compiles no schema again. */
const wrappedPlugins = new WeakMap<object, Map<string, Plugin>>()

/**
 * The plugins, each set up with an `addTool` that drops the tools `allowed` does not name: a
 * profile's `tools` then covers the child's whole tool set, not only the config's own tools.
 */
function onlyTools(entries: readonly PluginEntry[], allowed: ReadonlySet<string>): PluginEntry[] {
  const key = [...allowed].sort().join('\n')
  return entries.map((entry) => {
    const [plugin, options] = splitEntry(entry)
    let byAllowlist = wrappedPlugins.get(plugin)
    if (!byAllowlist) wrappedPlugins.set(plugin, (byAllowlist = new Map()))
    let wrapped = byAllowlist.get(key)
    if (!wrapped) {
      wrapped = definePlugin<any>({
        ...plugin,
        setup: (context, pluginOptions) =>
          plugin.setup({ ...context, addTool: (tool: Tool) => (allowed.has(tool.name) ? context.addTool(tool) : undefined) }, pluginOptions),
      })
      byAllowlist.set(key, wrapped)
    }
    return options === undefined ? wrapped : ([wrapped, options] as const)
  })
}

/**
 * Closes a child once (a second call gets the same close), its own children first. A borrowed
 * child is only let go: its owner (the host) closes it.
 */
export function closeChild(child: Child): Promise<void> {
  return (child.closing ??= child.borrowed ? Promise.resolve() : child.agent.close())
}
