/**
 * @bosun/core/config — find, load, check and build an agent from a config file. A separate entry
 * from `@bosun/core`, so that embedding the runtime does not pull in cosmiconfig and jiti.
 */
export { defineConfig } from './define-config.js'
export { CONFIG_SEARCH_PLACES, loadConfig } from './load.js'
export type { LoadConfigOptions } from './load.js'
export { validateConfig } from './validate.js'
export type { ValidateConfigOptions } from './validate.js'
export { createAgentFromConfig } from './create.js'
export type { CreateAgentFromConfigOptions } from './create.js'
export { candidatePackages } from './resolve.js'
export { looksLikeCredential } from './credentials.js'
export { envVariablesNamed } from './env-names.js'
export { CORE_VERSION, coreSatisfies, declaredCoreRange } from './core-range.js'
export { satisfiesRange } from './semver.js'
export { compileOptionsValidator } from '../schema.js'
export { FIRST_PARTY_PACKAGES, configNameOf } from './not-found.js'
export type { ConfigStage, OnConfigStage } from './stage.js'
export { configSchema, renderConfigSchema } from './schema.js'
export type {
  BosunConfig, BundledModules, ConfigProblem, EntryKind, EntryOptions, KnownAdapterName, KnownPluginName, KnownStoreName, LoadedConfig,
  ModelConfig, PluginConfig, ResolvedConfig, StoreConfig, ToolConfig,
} from './types.js'
