import { resolve } from 'node:path'
import { createAdapter } from '../adapter.js'
import { createAgent } from '../create-agent.js'
import { BosunError, ErrorCodes } from '../errors.js'
import type { Agent } from '../loop/agent.js'
import type { ModelAdapter } from '../model.js'
import type { Plugin, PluginEntry } from '../plugin.js'
import { optionsErrorProblems } from '../schema.js'
import { createStore } from '../store/define-store.js'
import { memoryStore } from '../store/memory.js'
import type { Store } from '../store/types.js'
import { resolvedFor } from './load.js'
import { childPath, configError, rootPath } from './problems.js'
import { summarizeError } from './resolve.js'
import { inStage, type OnConfigStage } from './stage.js'
import type { BosunConfig, LoadedConfig, ResolvedConfig } from './types.js'
import { validateConfig, type ValidateConfigOptions } from './validate.js'

/** Options of {@link createAgentFromConfig}. */
export interface CreateAgentFromConfigOptions extends ValidateConfigOptions {
  /** Resume this session if the store has it, else create it. Default: a new id. */
  sessionId?: string
  /** Use this store instead of the config's (the config's store entry is still checked). */
  store?: Store
  /** For a config given as an object: where names and relative paths resolve from. Default: `process.cwd()`. */
  cwd?: string
  /** Told when each plugin's `setup` runs and when it has settled; see {@link OnConfigStage}. */
  onStage?: OnConfigStage
  /**
   * Gives up the build when it aborts: passed to `createAgent` (its `signal`), which rejects with
   * OPEN_ABORTED, tears down the setups that finished and releases the session without waiting for
   * a setup that never settles. A store created from the config is closed. Default: none.
   */
  signal?: AbortSignal
}

/**
 * Builds an agent from a config: the adapter and the store the config names (created with their
 * options), its plugins in order, the system prompt, the tools and `maxParallelTools`. Takes what
 * {@link loadConfig} returned (already checked) or a config object (checked here). A store
 * created from the config is closed by `agent.close()`.
 *
 * @example
 * const agent = await createAgentFromConfig(await loadConfig(), { sessionId: 'support-42' })
 * agent.followup('hello')
 * await agent.whenIdle()
 */
export async function createAgentFromConfig(
  config: LoadedConfig | BosunConfig,
  options: CreateAgentFromConfigOptions = {},
): Promise<Agent> {
  const loaded: LoadedConfig = isLoaded(config) ? config : { config, file: undefined, dir: resolve(options.cwd ?? process.cwd()) }
  const resolved = resolvedFor(loaded) ?? (await validateConfig(loaded, options))
  const model = await createModel(resolved)
  const owned = options.store === undefined ? await openStore(resolved) : undefined
  // A setup's options error, and the config problem it is (createAgent throws the former as it is).
  const asConfigErrors = new Map<unknown, BosunError>()
  const agent = await createAgent({
    model,
    store: options.store ?? owned,
    plugins: resolved.plugins.map((entry, index) => {
      const located = withConfigPath(entry, index, loaded, resolved, asConfigErrors)
      return options.onStage === undefined ? located : staged(located, index, options.onStage)
    }),
    tools: resolved.tools,
    ...(resolved.system === undefined ? {} : { system: resolved.system }),
    ...(resolved.maxParallelTools === undefined ? {} : { maxParallelTools: resolved.maxParallelTools }),
    ...(resolved.logPages === undefined ? {} : { logPages: resolved.logPages }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ownsStore: owned !== undefined,
  }).catch(async (error: unknown) => {
    await owned?.close().catch(() => {})
    throw asConfigErrors.get(error) ?? locatedSetupFailure(error, loaded, resolved)
  })
  return agent
}

/**
 * A plugin's setup (or afterSetup check) that threw, from a config file: the file and the entry's
 * path and name, as a config problem names them (`$.plugins[0] (plugin "./guard.mjs")`) — the
 * plugin's own name alone does not say which line of which file to look at. Same code.
 */
function locatedSetupFailure(error: unknown, loaded: LoadedConfig, resolved: ResolvedConfig): unknown {
  if (!BosunError.is(error, ErrorCodes.PLUGIN_SETUP_FAILED) || resolved.file === undefined) return error
  const plugin = error.details['plugin']
  const index = resolved.plugins.findIndex((entry) => (Array.isArray(entry) ? entry[0] : entry).name === plugin)
  if (index < 0) return error
  const { entryPath, name } = entryLocation(index, loaded, resolved)
  const stop = /[.!?]$/.test(error.message) ? '' : '.'
  return new BosunError(ErrorCodes.PLUGIN_SETUP_FAILED, `${error.message}${stop} In ${resolved.file}: ${entryPath} (plugin "${name}").`, {
    cause: error.cause,
    details: { ...error.details, file: resolved.file, path: entryPath },
  })
}

/** Where a plugin entry is in the config (`$.plugins[2]`) and the name it was given there. */
function entryLocation(index: number, loaded: LoadedConfig, resolved: ResolvedConfig): { entryPath: string; name: string } {
  const entry = resolved.plugins[index]!
  const plugin: Plugin = Array.isArray(entry) ? entry[0] : entry
  const written = (loaded.config.plugins as unknown[] | undefined)?.[index]
  const spec = Array.isArray(written) ? written[0] : written
  return { entryPath: childPath(childPath(rootPath(resolved.file), 'plugins'), index), name: typeof spec === 'string' ? spec : plugin.name }
}

/** The entry with a plugin whose `setup` reports its stage; its options and everything else unchanged. */
function staged(entry: PluginEntry, index: number, onStage: OnConfigStage): PluginEntry {
  const plugin: Plugin = Array.isArray(entry) ? entry[0] : entry
  const wrapped: Plugin = {
    ...plugin,
    setup: (context, options) => inStage(onStage, { kind: 'plugin-setup', plugin: plugin.name, index }, async () => plugin.setup(context, options)),
  }
  return Array.isArray(entry) ? [wrapped, entry[1]] : wrapped
}

/**
 * The entry with a plugin whose `setup` finds its options invalid (a pattern that does not
 * compile: `PLUGIN_OPTIONS_INVALID`, paths from the options' root) throwing that as a config
 * problem — the file, the path in it (`$.plugins[2][1].rules[0].pattern`) and the entry's name —
 * as the schema's problems are reported, instead of a bare `$.rules[0].pattern`.
 */
function withConfigPath(entry: PluginEntry, index: number, loaded: LoadedConfig, resolved: ResolvedConfig, asConfigErrors: Map<unknown, BosunError>): PluginEntry {
  const plugin: Plugin = Array.isArray(entry) ? entry[0] : entry
  const { entryPath, name } = entryLocation(index, loaded, resolved)
  const optionsPath = Array.isArray(entry) ? childPath(entryPath, 1) : entryPath
  const wrapped: Plugin = {
    ...plugin,
    setup: async (context, options) => {
      try {
        return await plugin.setup(context, options)
      } catch (error) {
        // Thrown as it is (createAgent passes an options error through, and closes what setups
        // opened); createAgentFromConfig then throws the config problem in its place.
        if (BosunError.is(error, ErrorCodes.PLUGIN_OPTIONS_INVALID)) {
          const problems = (optionsErrorProblems(error) ?? []).map(({ path, message }) => ({ path: `${optionsPath}${path.slice(1)}`, plugin: name, message, cause: error }))
          if (problems.length > 0) asConfigErrors.set(error, configError(resolved.file, resolved.dir, problems))
        }
        throw error
      }
    },
  }
  return Array.isArray(entry) ? [wrapped, entry[1]] : wrapped
}

function isLoaded(value: LoadedConfig | BosunConfig): value is LoadedConfig {
  const candidate = value as Partial<LoadedConfig>
  return typeof candidate.dir === 'string' && 'config' in candidate && 'file' in candidate
}

async function createModel(resolved: ResolvedConfig): Promise<ModelAdapter> {
  if ('adapter' in resolved.model) return resolved.model.adapter
  const { definition, options, name } = resolved.model
  try {
    return await createAdapter(definition, options)
  } catch (error) {
    throw creationError(resolved, 'model', name, error)
  }
}

async function openStore(resolved: ResolvedConfig): Promise<Store> {
  if (resolved.store === 'memory') return memoryStore()
  if ('store' in resolved.store) return resolved.store.store
  const { definition, options, name } = resolved.store
  try {
    return await createStore(definition, options, { baseDir: resolved.dir })
  } catch (error) {
    throw creationError(resolved, 'store', name, error)
  }
}

/** A definition whose `create` threw: reported like any config problem, with the cause kept. */
function creationError(resolved: ResolvedConfig, section: 'model' | 'store', name: string, error: unknown): BosunError {
  const path = childPath(rootPath(resolved.file), section)
  const kind = section === 'model' ? 'adapter' : 'store'
  const message = `creating the ${kind} failed: ${summarizeError(error)}`
  return configError(resolved.file, resolved.dir, [{ path, plugin: name, kind, message, cause: error }])
}
