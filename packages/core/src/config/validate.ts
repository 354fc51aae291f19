import type { PluginEntry } from '../plugin.js'
import type { Tool } from '../tools/types.js'
import { schemaErrors } from './ajv-messages.js'
import { depthProblem } from './depth.js'
import { isPlugin, isStore, isStoreDefinition, resolveEntry, resolveTools, type EntryContext } from './entries.js'
import { envOptionsIn } from './env-names.js'
import { resolveModelEntries, resolveModelEntry } from './model-entries.js'
import { childPath, configError, describeValue, rootPath } from './problems.js'
import { createModuleLoader } from './resolve.js'
import { configSchema } from './schema.js'
import { registerEnvOptionSecrets } from './secret-values.js'
import type { BosunConfig, BundledModules, ConfigProblem, LoadedConfig, ResolvedConfig } from './types.js'

/** Options of {@link validateConfig} (and of `loadConfig` and `createAgentFromConfig`). */
export interface ValidateConfigOptions {
  /** Where `…Env` options are looked up. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>
  /**
   * Packages to use when a name does not resolve from the config's folder, by package name. A
   * tool that ships Bosun's parts (the `bosun` CLI) passes its own copies, so that a config naming
   * `openai` or `retry` works in a project that has not installed them. A copy the project has
   * installed always wins. Default: none.
   */
  bundled?: BundledModules
}

/**
 * Checks a loaded config and resolves everything it names: its depth, the root schema (unknown
 * keys get a "did you mean"), then every adapter, store, plugin and tool entry — found, loaded,
 * of the right kind, its secrets, the model entries its options schema marks, its options valid
 * against its own schema. Every problem is collected; one broken entry never hides another's.
 * Throws one `CONFIG_INVALID` error listing them all.
 *
 * @example
 * const resolved = await validateConfig(await loadConfig({ validate: false }))
 */
export async function validateConfig(loaded: LoadedConfig, options: ValidateConfigOptions = {}): Promise<ResolvedConfig> {
  const { file, dir } = loaded
  const root = rootPath(file)
  const config: unknown = loaded.config
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    const message = `must be a config object such as { "model": …, "plugins": […] } (found ${describeValue(config)}).`
    throw configError(file, dir, [{ path: root, message }])
  }
  // A promise has no keys of its own, so the root schema would pass it as an empty config and what
  // it resolves to would be silently ignored (`export default (async () => ({…}))()`).
  if (typeof (config as { then?: unknown }).then === 'function') {
    const message = 'must be a config object, not a promise: it is not awaited, so what it resolves to would be ignored. Await it first (in a config file: export default defineConfig(await …), a top-level await).'
    throw configError(file, dir, [{ path: root, message }])
  }
  const tooDeep = depthProblem(config, root)
  if (tooDeep !== undefined) throw configError(file, dir, [tooDeep])

  const problems: ConfigProblem[] = []
  const invalid: string[] = []
  for (const error of schemaErrors(configSchema, config, root)) {
    problems.push({ path: error.path, message: error.message })
    if (error.pointer !== '') invalid.push(error.pointer)
  }
  // An entry the root schema refused is not resolved: its problem is already reported.
  const usable = (pointer: string) => !invalid.some((bad) => bad === pointer || bad.startsWith(`${pointer}/`) || pointer.startsWith(`${bad}/`))

  const context: EntryContext = { loader: createModuleLoader(dir, options.bundled), env: options.env ?? process.env, resolveModels: resolveModelEntries }
  // The secrets among what the `…Env` options name (an `apiKeyEnv`'s key, a connection URL's
  // password — not a `regionEnv`'s region): masked by value from now on wherever text leaves the
  // process (a provider or a plugin may quote one back in an error).
  registerEnvOptionSecrets(envOptionsIn(config), context.env)
  const typed = config as BosunConfig
  const each = <T>(key: 'plugins' | 'tools', resolve: (entry: unknown, path: string) => Promise<T>) =>
    Promise.all(
      arrayOf(typed[key]).map((entry, index) => (usable(`/${key}/${index}`) ? resolve(entry, childPath(childPath(root, key), index)) : undefined)),
    )
  const [model, store, plugins, tools] = await Promise.all([
    usable('/model') ? resolveModel(context, typed, root) : undefined,
    usable('/store') ? resolveStore(context, typed, root) : undefined,
    each('plugins', (entry, path) => resolvePlugin(context, entry, path)),
    each('tools', (entry, path) => resolveTools(context, entry, path)),
  ])
  for (const result of [model, store, ...plugins, ...tools]) problems.push(...(result?.problems ?? []))
  problems.push(...duplicateTools(tools, childPath(root, 'tools')))
  if (problems.length > 0 || model?.value === undefined || store?.value === undefined) throw configError(file, dir, problems)

  return {
    model: model.value,
    store: store.value,
    plugins: plugins.map((result) => result!.value!),
    tools: tools.flatMap((result) => result!.value!),
    system: typed.system,
    maxParallelTools: typed.maxParallelTools,
    logPages: typed.logPages,
    dir,
    file,
  }
}

type Result<T> = { value: T | undefined; problems: ConfigProblem[] }

async function resolveModel(context: EntryContext, config: BosunConfig, root: string): Promise<Result<ResolvedConfig['model']>> {
  const path = childPath(root, 'model')
  const at = { path: config.model === undefined ? path : childPath(path, 'adapter'), optionsPath: childPath(path, 'options') }
  const result = await resolveModelEntry(context, config.model ?? { adapter: 'scripted' }, at)
  if (config.model !== undefined) return result
  const problems = result.problems.map((problem) => ({ ...problem, message: `no model is configured, and the default adapter ${problem.message}` }))
  return { value: result.value, problems }
}

async function resolveStore(context: EntryContext, config: BosunConfig, root: string): Promise<Result<ResolvedConfig['store']>> {
  const path = childPath(root, 'store')
  const entry: unknown = config.store ?? 'memory'
  const [spec, options] = Array.isArray(entry) ? [entry[0], entry[1]] : [entry, undefined]
  if (spec === 'memory') {
    if (options === undefined) return { value: 'memory', problems: [] }
    const message = 'the memory store takes no options; remove them, or name a store that does ("store-jsonl").'
    return { value: undefined, problems: [{ path: childPath(path, 1), message }] }
  }
  if (typeof spec !== 'string' && !isStoreDefinition(spec) && isStore(spec) && !Array.isArray(entry)) {
    return { value: { store: spec }, problems: [] }
  }
  const at = { path, optionsPath: Array.isArray(entry) ? childPath(path, 1) : undefined }
  const result = await resolveEntry(context, 'store', spec, options, at, isStoreDefinition)
  const name = typeof spec === 'string' ? spec : result.value?.name
  return { value: result.value && { definition: result.value, options: result.options, name: name! }, problems: result.problems }
}

async function resolvePlugin(context: EntryContext, entry: unknown, path: string): Promise<Result<PluginEntry>> {
  const [spec, options] = Array.isArray(entry) ? [entry[0], entry[1]] : [entry, undefined]
  const at = { path, optionsPath: Array.isArray(entry) ? childPath(path, 1) : undefined }
  const result = await resolveEntry(context, 'plugin', spec, options, at, isPlugin)
  const value: PluginEntry | undefined = result.value && (options === undefined ? result.value : [result.value, result.options])
  return { value, problems: result.problems }
}

function duplicateTools(results: readonly (Result<Tool[]> | undefined)[], path: string): ConfigProblem[] {
  const seen = new Map<string, number>()
  const problems: ConfigProblem[] = []
  results.forEach((result, index) => {
    for (const tool of result?.value ?? []) {
      const first = seen.get(tool.name)
      if (first === undefined) seen.set(tool.name, index)
      else {
        const message = `a tool named "${tool.name}" is already given by ${childPath(path, first)}; tool names must be unique.`
        problems.push({ path: childPath(path, index), plugin: tool.name, kind: 'tool', message })
      }
    }
  })
  return problems
}

/** The entries of a list the schema accepted; a list of the wrong type was reported already. */
function arrayOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : []
}
