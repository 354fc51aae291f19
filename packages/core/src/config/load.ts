import { dirname, extname, resolve } from 'node:path'
import type { Loader } from 'cosmiconfig'
import { BosunError } from '../errors.js'
import { depthProblem } from './depth.js'
import { configExplorer } from './explorer.js'
import { ConfigFileError, loadJson, loadModule, loadYaml, unbox } from './file-loaders.js'
import { configError, rootPath } from './problems.js'
import { summarizeError } from './resolve.js'
import { placePassedOver } from './passed-over.js'
import { inStage, type OnConfigStage } from './stage.js'
import type { BosunConfig, LoadedConfig, ResolvedConfig } from './types.js'
import { validateConfig, type ValidateConfigOptions } from './validate.js'

/** Where a config is looked for, in each folder from the start upwards, first match wins. */
export const CONFIG_SEARCH_PLACES: readonly string[] = [
  'package.json',
  '.bosunrc',
  '.bosunrc.json',
  '.bosunrc.yaml',
  '.bosunrc.yml',
  'bosun.config.ts',
  'bosun.config.mts',
  'bosun.config.cts',
  'bosun.config.js',
  'bosun.config.mjs',
  'bosun.config.json',
  'bosun.config.yaml',
  'bosun.config.yml',
]

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions extends ValidateConfigOptions {
  /** Where the search starts, and what `file` is relative to. Default: `process.cwd()`. */
  cwd?: string
  /** Load this file instead of searching. */
  file?: string
  /** Resolve and check everything the config names (default `true`); `false` only loads the file. */
  validate?: boolean
  /** Told when the config file's own code (TS or JS) runs and when it has settled; see {@link OnConfigStage}. */
  onStage?: OnConfigStage
}

const resolvedConfigs = new WeakMap<LoadedConfig, ResolvedConfig>()

/**
 * Finds and loads the config: `bosun.config.{ts,mts,cts,js,mjs,json,yaml,yml}`, `.bosunrc{,.json,.yaml,.yml}`
 * or `package.json#bosun`, searching from `cwd` up to the project root (the nearest folder with a
 * `package.json`). TypeScript is loaded with jiti (imported only then), in memory. Unless `validate: false`, everything
 * the config names is resolved and checked (see {@link validateConfig}). With no config found,
 * returns the default config (scripted model, memory store) with `file: undefined`.
 *
 * @example
 * const loaded = await loadConfig()
 * const agent = await createAgentFromConfig(loaded)
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = resolve(options.cwd ?? process.cwd())
  const runModule: Loader = (filepath, content) => inStage(options.onStage, { kind: 'config-file', file: filepath }, async () => loadModule(filepath, content))
  const loaders: Record<string, Loader> = {
    '.ts': runModule,
    '.mts': runModule,
    '.cts': runModule,
    '.js': runModule,
    '.mjs': runModule,
    // Not searched for, but loaded when named (--config bosun.config.cjs), as cosmiconfig's own loaders did.
    '.cjs': runModule,
    '.json': loadJson,
    '.yaml': loadYaml,
    '.yml': loadYaml,
    noExt: loadYaml,
  }
  const explorer = configExplorer({ searchPlaces: CONFIG_SEARCH_PLACES, loaders })
  const file = options.file === undefined ? undefined : resolve(cwd, options.file)
  if (file !== undefined && !(extname(file) in loaders) && extname(file) !== '') throw formatError(file)
  let reading = file
  let result: Awaited<ReturnType<typeof explorer.search>>
  try {
    result = file === undefined ? await explorer.search(cwd) : await explorer.load(file)
    // A search place the search could not read is reported, not skipped (see placePassedOver).
    if (file === undefined) reading = await placePassedOver(cwd, CONFIG_SEARCH_PLACES, result?.filepath)
    if (file === undefined && reading !== undefined) result = await explorer.load(reading)
  } catch (error) {
    throw loadError(error, reading, file === undefined)
  }
  if (result === null && file !== undefined) {
    // Only a package.json without a `bosun` key loads as "no config".
    const message = 'this package.json has no "bosun" key. Add one with the config, or name a config file.'
    throw configError(file, dirname(file), [{ path: '$.bosun', message }])
  }
  if (result === null) return { config: {}, file: undefined, dir: cwd }
  const loaded: LoadedConfig = { config: unbox(result.config) as BosunConfig, file: result.filepath, dir: dirname(result.filepath) }
  if (result.isEmpty) {
    const message = 'the file is empty. Give a config object (even {}), or delete the file.'
    throw configError(loaded.file, loaded.dir, [{ path: rootPath(loaded.file), message }])
  }
  // Even unchecked (`validate: false`), a config too deep to walk safely is not handed out.
  const tooDeep = depthProblem(loaded.config, rootPath(loaded.file))
  if (tooDeep !== undefined) throw configError(loaded.file, loaded.dir, [tooDeep])
  if (options.validate !== false) resolvedConfigs.set(loaded, await validateConfig(loaded, options))
  return loaded
}

/** The resolution {@link loadConfig} already did for this config, if any. */
export function resolvedFor(loaded: LoadedConfig): ResolvedConfig | undefined {
  return resolvedConfigs.get(loaded)
}

function loadError(error: unknown, requested: string | undefined, searched: boolean): BosunError {
  if (BosunError.is(error)) return error
  const file = ((error as { filepath?: string } | undefined)?.filepath ?? requested)!
  if (error instanceof ConfigFileError) {
    const cause = error.cause === undefined ? {} : { cause: error.cause }
    // The whole file: a package.json that does not parse has no `bosun` key to point at.
    return configError(file, dirname(file), [{ path: '$', message: error.message, ...cause }])
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOENT' && file === requested) {
    // A search place that is there but does not exist is a link to nothing.
    const message = searched ? 'the file is a link to a file that does not exist. Fix the link, or remove it.' : 'the file does not exist.'
    return configError(file, dirname(file), [{ path: '$', message }])
  }
  const why = file === requested ? UNREADABLE[code ?? ''] : undefined
  return configError(file, dirname(file), [{ path: '$', message: `the file cannot be read: ${why ?? summarizeError(error)}`, cause: error }])
}

/** Why a config file could not be read, and what to do, by the error's code. */
const UNREADABLE: Record<string, string> = {
  EACCES: 'permission denied. Let the user running bosun read it, or remove it.',
  EPERM: 'permission denied. Let the user running bosun read it, or remove it.',
  EISDIR: 'it is a folder, not a file. Rename or remove the folder.',
}

/** A config file named with an extension no loader reads (`--config bosun.config.txt`). */
function formatError(file: string): BosunError {
  const message = `the file's extension ${JSON.stringify(extname(file))} is not a config format: name a .json, .yaml, .yml, .ts, .mts, .cts, .js, .mjs or .cjs file (a file without an extension is read as YAML).`
  return configError(file, dirname(file), [{ path: '$', message }])
}
