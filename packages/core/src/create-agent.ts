import { randomUUID } from 'node:crypto'
import { BosunError, ErrorCodes, invalidArgument } from './errors.js'
import { createHooks } from './hooks.js'
import { Inbox } from './inbox/inbox.js'
import type { Agent } from './loop/agent.js'
import { beginOpen, RegisteredAgent } from './live-agents.js'
import { logThrown } from './log-thrown.js'
import { assertSignal, OpenAbort } from './open-abort.js'
import type { SystemPrompt } from './loop/runtime.js'
import type { ModelAdapter } from './model.js'
import { resolvePluginEntry, runSetupChecks, setupPlugins, type AgentConfig, type PluginEntry, type SetupCheck } from './plugin.js'
import { LOG_FORMAT_VERSION, type SessionEvent, type SessionHeader } from './session/events.js'
import { adoptWriter, Session } from './session/session.js'
import { enableLogPages, LOG_PAGES_SCHEMA, type LogPagesOptions } from './session/sealer.js'
import { assertOptions, compileOptionsValidator, type JsonSchema } from './schema.js'
import { checkEventTypes } from './session/event-types.js'
import { Surface } from './session/surface.js'
import { memoryStore } from './store/memory.js'
import { closeOpenTurn } from './store/repair.js'
import { assertSessionId } from './store/session-id.js'
import type { NewSession, Store, StoredSession } from './store/types.js'
import { ToolRegistry } from './tools/registry.js'
import type { Tool } from './tools/types.js'

/**
 * `maxParallelTools`, as a config file gives it too: the config schema's property is this very
 * object, so a code caller and a config get the same line (`$.maxParallelTools: must be >= 1 (found 0)`).
 */
export const MAX_PARALLEL_TOOLS_SCHEMA = {
  type: 'integer', minimum: 1, default: 8,
  description: 'Upper bound of tool calls running at once within a step. Default 8.',
} as const satisfies JsonSchema

/** The options `createAgent` checks against a schema the config shares (see {@link MAX_PARALLEL_TOOLS_SCHEMA}). */
const AGENT_OPTIONS_SCHEMA: JsonSchema = { type: 'object', properties: { maxParallelTools: MAX_PARALLEL_TOOLS_SCHEMA } }

export interface CreateAgentOptions {
  /** The model adapter, e.g. `scripted({...})` or an adapter made from a config file. */
  model: ModelAdapter
  /** Where the session is kept. Default: a new in-memory store. */
  store?: Store
  /**
   * Resume this session if the store has it, else create it — in the store only once every plugin
   * setup passed (a refused config leaves no session behind). Default: a new UUID.
   */
  sessionId?: string
  /** Plugins in order, each `plugin` or `[plugin, options]`. Options are validated before any setup runs. */
  plugins?: readonly PluginEntry[]
  /** The system prompt, or a function that assembles it for each step. Default: empty. */
  system?: SystemPrompt
  tools?: readonly Tool[]
  /** Upper bound of tool calls running at once within a step. Default 8. */
  maxParallelTools?: number
  /** Clock for event times. Default `Date.now`. */
  now?: () => number
  /**
   * What the session is made from when the store does not have it, instead of a plain header — e.g.
   * a subagent child's session, whose header carries its `delegation` and which may be seeded (a
   * fork: `forkSeed`). Called only then; the session is built from it in memory, so the plugin
   * setups read its header and seed, and created in the store (`store.create(header, seed and
   * what the setups appended)`) only once every setup passed, like any new session: a refused
   * setup leaves nothing behind. Inside this agent's claim on the session (see `borrowOrOpen`), so
   * no other part of the process opens it meanwhile. Needs `sessionId`; `header.id` must be it.
   */
  newSession?: () => Promise<NewSession>
  /**
   * The agent owns the store: `agent.close()` closes it too. Default: true for the memory store
   * made when `store` is omitted, false for a store you pass (you may share it between agents).
   */
  ownsStore?: boolean
  /**
   * Sealed log pages: once the session has been idle (its log unchanged, no turn running) for
   * `idleMs` (default 30,000; the sweep checks every `idleMs`, so 1–2 × that), its events before
   * the last `turn/end` (which stays live) are sealed into deflated pages of `pageEvents` events
   * (default 256) off the heap, and read back as equal frozen copies (compare events by `seq`;
   * docs/architecture.md, "Sealed log pages"). Default on (`{}`); `false` keeps every event live.
   */
  logPages?: false | LogPagesOptions
  /**
   * Gives up building the agent when it aborts — a plugin's setup awaiting a server that never
   * answers would otherwise hold the session (a JSONL lock, a PG lease) until the process exits.
   * `createAgent` then rejects at once with `OPEN_ABORTED`, runs the teardowns the setups
   * registered so far and releases the session, without waiting for the work still running
   * (plugins see the abort on `ctx.signal`). No effect once `createAgent` resolved.
   */
  signal?: AbortSignal
}

/**
 * Builds an agent: validates plugins and tools, opens (resuming) or stages a new session, rebuilds
 * the inbox, surface and turn counter from the log, runs plugin setups in order and then creates a
 * new session in the store. Resuming starts nothing by itself: pending input runs at the next wake.
 *
 * @example
 * const agent = await createAgent({ model: scripted({ responses: [{ text: 'hi' }] }) })
 * agent.followup('hello')
 * await agent.whenIdle()
 */
export async function createAgent(options: CreateAgentOptions): Promise<Agent> {
  if (typeof options !== 'object' || options === null) throw invalidArgument('createAgent(options): options must be an object.')
  const { model, store = memoryStore(), plugins = [], system = '', tools = [], maxParallelTools = 8 } = options
  if (typeof model?.stream !== 'function' || typeof model.name !== 'string') {
    throw invalidArgument('createAgent(): "model" must be a model adapter with a name and a stream(request, options) method.')
  }
  if (typeof store?.open !== 'function' || typeof store.create !== 'function') {
    throw invalidArgument('createAgent(): "store" must be a Store (memoryStore(), or a store plugin).')
  }
  if (!Array.isArray(plugins)) throw invalidArgument('createAgent(): "plugins" must be an array of plugins or [plugin, options] pairs.')
  if (typeof system !== 'string' && typeof system !== 'function') {
    throw invalidArgument('createAgent(): "system" must be a string or a function returning one.')
  }
  if (options.maxParallelTools !== undefined) assertOptions(AGENT_OPTIONS_SCHEMA, { maxParallelTools }, 'createAgent()')
  if (options.now !== undefined && typeof options.now !== 'function') throw invalidArgument('createAgent(): "now" must be a function.')
  if (options.logPages !== undefined) compileOptionsValidator(LOG_PAGES_SCHEMA, LOG_PAGES_SCHEMA, ErrorCodes.INVALID_ARGUMENT)(options.logPages, 'createAgent(): "logPages"')
  if (options.newSession !== undefined && (typeof options.newSession !== 'function' || options.sessionId === undefined)) {
    throw invalidArgument('createAgent(): "newSession" must be a function, and needs "sessionId" (the session it describes).')
  }
  assertSignal(options.signal)
  // Everything that can be checked without the store is checked first: a bad config creates no session.
  const resolved = plugins.map((entry, index) => resolvePluginEntry(entry, index))
  const declared = new Set<string>()
  const ignorable = new Set<string>()
  for (const { plugin } of resolved) {
    for (const [type, spec] of Object.entries(plugin.events ?? {})) {
      declared.add(type)
      if (spec.ignorable) ignorable.add(type)
    }
  }
  const registry = new ToolRegistry(tools)
  const sessionId = options.sessionId ?? randomUUID()
  assertSessionId(sessionId)
  const build = new OpenAbort(sessionId, options.signal)
  build.check()

  // Marked before the first await, so that a second open of this session in this process is
  // refused (to be borrowed, see live-agents.ts) rather than made a second writer.
  const registration = beginOpen(store, sessionId)
  try {
    const agent = await openAndBuild(options, { model, store, plugins, system, tools, maxParallelTools, declared, ignorable, registry, sessionId, build })
    registration.opened(agent)
    return agent
  } catch (error) {
    registration.failed()
    throw error
  } finally {
    build.done()
  }
}

/** What `createAgent` checked and resolved before touching the store. */
interface Checked {
  model: ModelAdapter
  store: Store
  plugins: readonly PluginEntry[]
  system: SystemPrompt
  tools: readonly Tool[]
  maxParallelTools: number
  declared: ReadonlySet<string>
  ignorable: ReadonlySet<string>
  registry: ToolRegistry
  sessionId: string
  /** The `signal` option's hold on the build: every step that may not settle is raced with it. */
  build: OpenAbort
}

/**
 * Opens (or creates) the session and builds the agent on it: see {@link createAgent}.
 *
 * A session the store does not have is staged: built in memory (from `newSession`'s header and
 * seed, else a plain header), without a writer, and created in the store — its seed, then whatever
 * the setups appended — only once every setup and check passed. A config refused there leaves
 * nothing behind (no empty session file for `bosun sessions list` to show, no subagent child
 * without a turn under its parent); an existing session is never removed.
 */
async function openAndBuild(options: CreateAgentOptions, checked: Checked): Promise<RegisteredAgent> {
  const { model, store, plugins, system, tools, maxParallelTools, declared, ignorable, registry, sessionId, build } = checked
  const hooks = createHooks()
  build.running(undefined, 'store-open')
  // A session the store opens after the build gave up is let go at once (its lock, its lease).
  const stored = await build.race(store.open(sessionId), (late) => late?.writer.close())
  if (!stored && options.newSession) build.running(undefined, 'new-session')
  const staged = stored ? undefined : options.newSession ? await build.race(described(options.newSession, sessionId)) : undefined
  const header: SessionHeader = stored?.header ?? staged?.header ?? { id: sessionId, version: LOG_FORMAT_VERSION, createdAt: (options.now ?? Date.now)() }
  // The writer alone, not `stored`: a closure here shares its context with the session's
  // long-lived callbacks (reportError), and `stored` holds the log array as the store opened it —
  // kept alive for the agent's life, it pinned every event that sealing would have let go.
  const openedWriter = stored?.writer
  const release = () => openedWriter?.close().catch(() => {})
  // A copy of a seed: the session's log grows in the array it is given.
  const session = new Session(header, stored?.events ?? [...(staged?.seed ?? [])], {
    ...(stored ? { writer: stored.writer } : {}),
    ...(options.now ? { now: options.now } : {}),
    reportError: (error, context) => {
      // `isUsed()` is always true here (every hook has an interceptor): count the taps.
      if (hooks.error.taps.length > 0) hooks.error.call(error, context)
      else logThrown(context, error)
    },
  })
  for (const type of ignorable) session.declareIgnorable(type)
  try {
    checkEventTypes(session.events, declared, sessionId)
  } catch (error) {
    await release()
    throw error
  }
  // Taps are counted on every call (a plugin may tap later); a hook without taps costs nothing.
  session.subscribe((event) => {
    if (hooks.event.taps.length > 0) hooks.event.call(event)
  })
  let inbox: Inbox
  try {
    inbox = new Inbox(session, {
      inserted: (message, target) => hooks.inboxInserted.taps.length > 0 && hooks.inboxInserted.call(message, target),
      discarded: (message, target) => hooks.inboxDiscarded.taps.length > 0 && hooks.inboxDiscarded.call(message, target),
      claimed: (message, turn) => hooks.inboxClaimed.taps.length > 0 && hooks.inboxClaimed.call(message, turn),
    })
  } catch (error) {
    await release()
    throw error
  }
  const ownsStore = options.ownsStore ?? options.store === undefined
  let agent: RegisteredAgent | undefined
  // Work plugins hold until the agent is whole (see PluginContext.onReady); undefined once it ran.
  let ready: (() => void)[] | undefined = []
  // Checks of the agent as every setup left it (see PluginContext.afterSetup); undefined once they ran.
  let checks: SetupCheck[] | undefined = []
  try {
    const surface = Surface.attach(session)
    // A turn that a crash left open is closed before anything else happens (persistence §8);
    // first, a queue move the crash tore in half is finished, so the message is pending again.
    inbox.recoverTornMoves()
    const recovery = closeOpenTurn(session, inbox)
    agent = new RegisteredAgent(
      {
        session, inbox, surface, hooks, adapter: model, tools: registry, system, maxParallelTools,
        ...(ownsStore ? { closeStore: () => store.close() } : {}),
      },
      recovery,
    )
    const now = options.now ?? Date.now
    const config: AgentConfig = Object.freeze({ model, store, system, tools: Object.freeze([...tools]), plugins: Object.freeze([...plugins]), maxParallelTools, logPages: options.logPages })
    const built = agent
    await build.race(setupPlugins(plugins, {
      hooks, session, inbox, agent, now, store, config, signal: build.signal,
      // A setup that goes on after the build gave up (the agent closed): its teardown runs now.
      onClose: (teardown) => (build.aborted ? closeLate(built, teardown) : built.onClose(teardown)),
      onStopAfterTurn: (callback) => built.onStopAfterTurn(callback),
      onReady: (callback) => {
        if (typeof callback !== 'function') throw invalidArgument('onReady(callback): callback must be a function.')
        if (!ready) throw invalidArgument('onReady() can be called only during setup: the agent is already built.')
        ready.push(callback)
      },
      afterSetup: (check) => {
        if (typeof check.check !== 'function') throw invalidArgument('afterSetup(check): check must be a function.')
        if (!checks) throw invalidArgument('afterSetup() can be called only during setup: the agent is already built.')
        checks.push(check)
      },
      addTool: (tool, where) => registry.add(tool, where),
    }, build))
    // The tool set is fixed from here on: every request of a session is made from it (or from what prepareCall returns).
    registry.seal()
    const registered = checks
    checks = undefined
    await build.race(runSetupChecks(registered, Object.freeze({ toolNames: Object.freeze(registry.names) }), build))
    // Every setup and check passed: a staged session is created now, with its seed and what the setups appended.
    if (!stored) {
      build.running(undefined, 'store-create')
      adoptWriter(session, await build.race(createStaged(store, header, session.events.slice()), (late) => late.writer.close()))
    }
  } catch (error) {
    // Nobody gets this agent to close later: close it now, running the teardowns earlier setups
    // registered (a child they opened, a timer), and release the session (a locking store keeps it locked).
    if (agent) await agent.close().catch(() => {})
    else await release()
    throw error
  }
  const callbacks = ready
  ready = undefined
  for (const callback of callbacks) {
    try {
      callback()
    } catch (error) {
      session.reportError(error, 'a plugin onReady callback')
    }
  }
  // Last: the load-time scans (inbox, surface, repair, plugins' ledgers) have read the live log.
  if (options.logPages !== false) enableLogPages(session, options.logPages ?? {}, agent)
  return agent
}

/**
 * Creates the staged session in the store. SESSION_EXISTS here means another agent (another
 * process, another host) created the id while this one's plugins were being set up — the store
 * had no such session when this one looked: said as such, since the store's own words ("choose
 * another id") are wrong for a caller that asked to resume the session or create it. A new
 * `createAgent` with this id resumes it.
 */
async function createStaged(store: Store, header: SessionHeader, seed: readonly SessionEvent[]): Promise<StoredSession> {
  try {
    return await store.create(header, seed)
  } catch (error) {
    if (!BosunError.is(error, ErrorCodes.SESSION_EXISTS)) throw error
    throw new BosunError(
      ErrorCodes.SESSION_EXISTS,
      `Session "${header.id}" was created by another agent while this one's plugins were being set up, and nothing of this one was stored: create the agent again (run the command again) to resume it.`,
      { cause: error, details: error.details },
    )
  }
}

/**
 * A teardown registered by a setup that went on after `createAgent` was aborted: the agent is
 * closed (or closing) already, so it runs now — what the setup opened late is not left open.
 */
function closeLate(agent: RegisteredAgent, teardown: () => void | Promise<void>): void {
  if (typeof teardown !== 'function') throw invalidArgument('onClose(teardown): teardown must be a function.')
  void (async () => teardown())().catch((error: unknown) => agent.session.reportError(error, 'a plugin teardown'))
}

/** What `newSession` describes, checked to be the session asked for. */
async function described(newSession: () => Promise<NewSession>, sessionId: string): Promise<NewSession> {
  const described = await newSession()
  if (described?.header?.id !== sessionId) {
    throw invalidArgument(`createAgent(): "newSession" described session "${String(described?.header?.id)}", not "${sessionId}".`)
  }
  if (described.seed !== undefined && !Array.isArray(described.seed)) throw invalidArgument('createAgent(): "newSession"\'s "seed" must be an array of events.')
  return described
}
