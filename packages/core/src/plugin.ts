import { createAdapter, type AdapterDefinition } from './adapter.js'
import { BosunError, ErrorCodes, invalidArgument } from './errors.js'
import type { AgentHooks } from './hooks.js'
import type { Inbox } from './inbox/inbox.js'
import type { ModelAdapter } from './model.js'
import { compileOptionsValidator, UNDECLARED_OPTIONS, type JsonSchema } from './schema.js'
import type { MessageInput, UserMessage } from './session/messages.js'
import type { LogPagesOptions } from './session/sealer.js'
import type { Session } from './session/session.js'
import type { SystemPrompt } from './loop/runtime.js'
import type { Store } from './store/types.js'
import type { Tool } from './tools/types.js'

/** The agent API a plugin may use from its hooks (e.g. to re-queue a rejected message later). */
export interface PluginAgentApi {
  followup(input: MessageInput): UserMessage
  steer(input: MessageInput): UserMessage
  inject(input: MessageInput): UserMessage
  abort(reason?: string): void
  /**
   * Wakes the agent for input already queued (e.g. messages a plugin spliced back): starts a turn
   * when idle; a no-op while running (the driver checks the inbox after each turn); latched after
   * an abort or during maintenance, like a waking send.
   */
  wake(): void
  readonly status: 'idle' | 'running'
}

/** What `setup` receives. */
export interface PluginContext {
  hooks: AgentHooks
  session: Session
  inbox: Inbox
  agent: PluginAgentApi
  /** The plugin's name, for tap names and namespaced event types. */
  name: string
  /** The agent's clock (`createAgent({ now })`), the one event times come from. */
  now(): number
  /**
   * Registers teardown (timers, connections) run by `agent.close()`, after the last turn — and by
   * `createAgent` when a later plugin's setup fails, so nothing a setup started is left open.
   */
  onClose(teardown: () => void | Promise<void>): void
  /**
   * Registers work run when `agent.stopAfterTurn()` is called (a host going away within a grace):
   * what the plugin runs beside the agent's own turns — a subagent's children — is stopped after
   * its turn too, and `stopAfterTurn()` resolves only once every such callback has settled as
   * well as the agent's own turn. A callback that throws or rejects is reported to `hooks.error`.
   */
  onStopAfterTurn(callback: () => void | Promise<void>): void
  /**
   * Registers work that may start a turn (a wake, a follow-up): run once the agent is built — every
   * plugin's setup done, its hooks tapped and the tool set sealed — just before `createAgent`
   * resolves, in registration order. A turn started during `setup` would run before later plugins
   * tapped their hooks. Never run if a setup fails; a callback that throws is reported to
   * `hooks.error`, not thrown. Only during `setup`: afterwards it throws `INVALID_ARGUMENT`.
   */
  onReady(callback: () => void): void
  /**
   * Registers a check of the agent as every setup left it: run once every plugin's setup is done
   * and the tool set is sealed (`built.toolNames`: the agent's own tools, then those plugins added,
   * in setup order) — for what one setup cannot judge alone, such as an option naming a tool a
   * later plugin adds. Checks run once each, in registration order, awaited, before any `onReady`
   * callback and before a new session is written to the store. A check that throws fails
   * `createAgent` as a setup's throw does: `PLUGIN_OPTIONS_INVALID` as it is, anything else as
   * `PLUGIN_SETUP_FAILED` naming the plugin; the teardowns run and nothing is left in the store.
   * Only during `setup`: afterwards it throws `INVALID_ARGUMENT`.
   */
  afterSetup(check: (built: BuiltAgent) => void | Promise<void>): void
  /**
   * Creates the adapter a model entry describes — an option the plugin's schema marks
   * `"x-bosun-model": true` (a helper model: a summariser, a judge): a ready adapter is returned
   * as it is, an adapter definition is created with `options` (checked against its schema). A
   * config file's adapter name (`{ adapter: 'openai', options }`) reaches `setup` already resolved
   * to its definition and checked by the config loader. Throws `INVALID_ARGUMENT` for anything else.
   */
  createModel(entry: ModelEntry): Promise<ModelAdapter>
  /**
   * Contributes a tool to the agent (a web search, retrieval, the subagent tools): checked like
   * the agent's own `tools` (name, description, JSON Schema parameters, execute) and added after
   * them, in setup order. Only during `setup`: afterwards it throws `INVALID_TOOL`.
   */
  addTool(tool: Tool): void
  /**
   * Aborts when `createAgent({ signal })` is aborted while the agent is being built (a host's
   * `limits.openTimeoutMs` passed): `createAgent` has rejected (`OPEN_ABORTED`), the teardowns
   * registered so far ran and the session was released, without waiting for this setup. Pass it to
   * what the setup awaits (`fetch(url, { signal })`) or check it, and stop: the agent is gone —
   * appends to its session are refused, and a teardown registered from here on runs at once.
   * It never aborts once `createAgent` resolved; without a `signal` option it never aborts.
   */
  signal: AbortSignal
  /** The store the agent's session lives in: a plugin may open or create other sessions in it (children, forks). */
  store: Store
  /**
   * The agent's resolved configuration, read-only: the model adapter, store, system prompt, tools
   * (before any `addTool`), plugin entries and limits — what a plugin needs to build another agent
   * like this one. From a config file it is what the loader resolved (adapters created, names resolved).
   */
  config: AgentConfig
}

/** What an {@link PluginContext.afterSetup} check is given: the agent once every plugin's setup is done. */
export interface BuiltAgent {
  /** Every tool of the agent, sealed: its own `tools`, then those plugins added, in setup order. */
  readonly toolNames: readonly string[]
}

/** {@link PluginContext.config}: the options the agent was created with, defaults filled in. */
export interface AgentConfig {
  readonly model: ModelAdapter
  readonly store: Store
  readonly system: SystemPrompt
  readonly tools: readonly Tool[]
  readonly plugins: readonly PluginEntry[]
  readonly maxParallelTools: number
  /** `createAgent`'s `logPages` as given (`undefined`: the default); a subagent's child gets the same. */
  readonly logPages: false | LogPagesOptions | undefined
}

/** A model entry as `setup` receives it: `{ adapter, options? }`, like a config's `model`. */
export interface ModelEntry {
  /** A ready adapter, or an adapter definition (an adapter package's default export). */
  adapter: ModelAdapter | AdapterDefinition<any>
  /** The definition's options; none for a ready adapter. */
  options?: Record<string, unknown>
}

/** A plugin: a name, a JSON Schema of its options and a `setup` that taps hooks. */
export interface Plugin<Options = any> {
  readonly kind: 'bosun-plugin'
  readonly name: string
  readonly schema?: JsonSchema
  /**
   * The namespaced event types this plugin appends. A stored session holding a type that no
   * plugin of the agent declares is refused when opened — unless the type is `ignorable` (a
   * reader without the plugin may skip it: counters, telemetry), which is recorded on each event.
   */
  readonly events?: { readonly [type: string]: { readonly ignorable?: boolean } }
  setup(context: PluginContext, options: Options): void | Promise<void>
}

/** A plugin with or without options, as `createAgent({plugins})` and a config file take it. */
export type PluginEntry = Plugin | readonly [Plugin, unknown]

const PLUGIN_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/

/**
 * Declares a plugin. A plugin package default-exports the result.
 *
 * @example
 * export default definePlugin({
 *   name: 'max-length',
 *   schema: { type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false },
 *   setup({ hooks }, { max = 4000 }: { max?: number }) {
 *     hooks.preStep.tapPromise('max-length', async (decision) =>
 *       decision.kind === 'enter' && decision.messages.some((m) => messageText(m).length > max)
 *         ? { kind: 'reject', metadata: { max } }
 *         : decision)
 *   },
 * })
 */
export function definePlugin<Options = Record<string, never>>(
  definition: Omit<Plugin<Options>, 'kind'>,
): Plugin<Options> {
  if (typeof definition !== 'object' || definition === null) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, 'definePlugin() takes an object { name, schema?, setup }.')
  }
  if (typeof definition.name !== 'string' || !PLUGIN_NAME.test(definition.name)) {
    throw new BosunError(
      ErrorCodes.INVALID_PLUGIN,
      `definePlugin(): "name" must be a lower-case package-like name such as "rate-limit", got ${JSON.stringify(definition.name)}.`,
    )
  }
  if (typeof definition.setup !== 'function') {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `Plugin "${definition.name}" needs a "setup(context, options)" function.`)
  }
  if (definition.events !== undefined && (typeof definition.events !== 'object' || definition.events === null)) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `Plugin "${definition.name}": "events" must be an object of event types.`)
  }
  for (const type of Object.keys(definition.events ?? {})) {
    if (!/^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)+$/.test(type)) {
      throw new BosunError(ErrorCodes.INVALID_PLUGIN, `Plugin "${definition.name}": event type "${type}" is not a "noun/phase" name.`)
    }
  }
  if (definition.schema !== undefined && (typeof definition.schema !== 'object' || definition.schema === null)) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `Plugin "${definition.name}": "schema" must be a JSON Schema object.`)
  }
  const plugin: Plugin<Options> = Object.freeze({ ...definition, kind: 'bosun-plugin' as const })
  if (plugin.schema) compileOptionsValidator(plugin, plugin.schema) // a broken schema fails here, at definition
  return plugin
}

/** Splits an entry into plugin and options, validating both. */
export function resolvePluginEntry(entry: unknown, index: number): { plugin: Plugin; options: unknown } {
  const [plugin, options] = Array.isArray(entry) ? [entry[0], entry[1]] : [entry, undefined]
  if (Array.isArray(entry) && entry.length > 2) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `plugins[${index}] must be a plugin or [plugin, options], got an array of ${entry.length}.`)
  }
  if (typeof plugin !== 'object' || plugin === null || (plugin as Plugin).kind !== 'bosun-plugin') {
    throw new BosunError(
      ErrorCodes.INVALID_PLUGIN,
      `plugins[${index}] is not a plugin made by definePlugin() (got ${plugin === null ? 'null' : typeof plugin}).`,
      { details: { index } },
    )
  }
  const typed = plugin as Plugin
  const value = options ?? {}
  // Without a schema too: an `…Env` option holding a key is refused before setup can quote it.
  compileOptionsValidator(typed, typed.schema ?? UNDECLARED_OPTIONS)(value, `plugin "${typed.name}" (plugins[${index}])`)
  return { plugin: typed, options: value }
}

/** A plugin's {@link PluginContext.afterSetup} check, with the plugin's name for its error. */
export interface SetupCheck {
  plugin: string
  check: (built: BuiltAgent) => void | Promise<void>
}

/**
 * How a build follows its setups and checks (createAgent's `signal`, see open-abort.ts): which
 * plugin runs, and `check()` throws once the build was given up, so that a setup that settles
 * after the abort does not start the next one.
 */
export interface SetupProgress {
  running(plugin: string | undefined, during: 'setup' | 'after-setup'): void
  check(): void
}

const UNFOLLOWED: SetupProgress = { running: () => {}, check: () => {} }

/** Validates every entry first (so a bad option fails before any setup runs), then sets them up in order. */
export async function setupPlugins(
  entries: readonly unknown[],
  context: Omit<PluginContext, 'name' | 'createModel' | 'addTool' | 'afterSetup'> & {
    addTool(tool: Tool, where: string): void
    afterSetup(check: SetupCheck): void
  },
  progress: SetupProgress = UNFOLLOWED,
): Promise<void> {
  // Resolved again (cheap: schemas are compiled once) so that this function stands on its own.
  const resolved = entries.map((entry, index) => resolvePluginEntry(entry, index))
  for (const { plugin, options } of resolved) {
    progress.check()
    progress.running(plugin.name, 'setup')
    try {
      const addTool = (tool: Tool) => context.addTool(tool, `plugin "${plugin.name}" addTool()`)
      const afterSetup = (check: SetupCheck['check']) => context.afterSetup({ plugin: plugin.name, check })
      await plugin.setup({ ...context, name: plugin.name, createModel, addTool, afterSetup }, options)
    } catch (error) {
      throw setupError(plugin.name, 'in setup', error)
    }
  }
}

/** Runs the {@link PluginContext.afterSetup} checks in order, each once; the first to throw fails as a setup would. */
export async function runSetupChecks(checks: readonly SetupCheck[], built: BuiltAgent, progress: SetupProgress = UNFOLLOWED): Promise<void> {
  for (const { plugin, check } of checks) {
    progress.check()
    progress.running(plugin, 'after-setup')
    try {
      await check(built)
    } catch (error) {
      throw setupError(plugin, 'its afterSetup check', error)
    }
  }
}

/** A setup's (or check's) throw: options that setup finds invalid (a regex that does not compile) are an options error as they are. */
function setupError(plugin: string, where: string, error: unknown): BosunError {
  if (BosunError.is(error, ErrorCodes.PLUGIN_OPTIONS_INVALID)) return error
  return new BosunError(
    ErrorCodes.PLUGIN_SETUP_FAILED,
    `Plugin "${plugin}" failed ${where}: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error, details: { plugin } },
  )
}

/** {@link PluginContext.createModel}: the same rules as the config's `model`, for an entry given in code or resolved by the config loader. */
async function createModel(entry: ModelEntry): Promise<ModelAdapter> {
  const adapter = (entry as Partial<ModelEntry> | undefined)?.adapter as Partial<ModelAdapter & AdapterDefinition<unknown>> | string | undefined
  if (typeof adapter === 'object' && adapter !== null) {
    if (adapter.kind === 'bosun-adapter' && typeof adapter.create === 'function') return createAdapter(adapter as AdapterDefinition<unknown>, entry.options)
    if (typeof adapter.stream === 'function' && typeof adapter.name === 'string') {
      if (entry.options === undefined) return adapter as ModelAdapter
      throw invalidArgument('a model entry\'s "options" cannot be given to an adapter that is already created; pass them when you create it.')
    }
  }
  if (typeof adapter === 'string') {
    throw invalidArgument(
      'a model entry names its adapter, but names are resolved only from a config file; in code, give the adapter itself ' +
        '({ adapter: openai({ … }) }) or its definition (the adapter package\'s default export) with options.',
    )
  }
  throw invalidArgument('a model entry\'s "adapter" must be a model adapter (with name and stream) or an adapter definition (an adapter package\'s default export).')
}
