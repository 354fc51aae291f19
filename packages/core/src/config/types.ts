import type { AdapterDefinition } from '../adapter.js'
import type { ModelAdapter } from '../model.js'
import type { Plugin, PluginEntry } from '../plugin.js'
import type { StoreDefinition } from '../store/define-store.js'
import type { LogPagesOptions } from '../session/sealer.js'
import type { Store } from '../store/types.js'
import type { Tool } from '../tools/types.js'

/** Options of a plugin, adapter or store as a config file gives them (checked against its own schema). */
export type EntryOptions = Record<string, unknown>

// `(string & {})` keeps any string allowed while editors still offer the known names.
/** Adapters an editor suggests; any `@bosun/adapter-x`, `bosun-adapter-x`, package or `./path` works. */
export type KnownAdapterName = 'scripted' | 'openai' | 'anthropic'
/** Stores an editor suggests; any store package or `./path` works. */
export type KnownStoreName = 'memory' | 'store-jsonl' | 'store-sqlite' | 'store-postgres'
/** Plugins an editor suggests; any `@bosun/plugin-x`, `bosun-plugin-x`, `@scope/x`, package or `./path` works. */
export type KnownPluginName = 'retry' | 'rate-limit' | 'step-limit' | 'content-filter' | 'compaction' | 'subagents'

/** The model: an adapter and its options. */
export interface ModelConfig {
  /**
   * `'openai'` → `@bosun/adapter-openai` (then `bosun-adapter-openai`), `'@acme/x'` →
   * `@acme/bosun-adapter-x`, a full package name, a `./path` (from the config file's folder), an
   * adapter definition (`defineAdapter`) or, in code, a ready adapter.
   */
  adapter: KnownAdapterName | (string & {}) | AdapterDefinition<any> | ModelAdapter
  /** Checked against the adapter's schema. Name secrets by environment variable: `apiKeyEnv: 'OPENAI_API_KEY'`. */
  options?: EntryOptions
}

/** A store: `'memory'`, a store name or path with or without options, a definition, or (in code) a store. */
export type StoreConfig =
  | KnownStoreName
  | (string & {})
  | readonly [KnownStoreName | (string & {}), EntryOptions]
  | StoreDefinition<any>
  | readonly [StoreDefinition<any>, unknown]
  | Store

/** A plugin: a name or path with or without options, or (in a TS config) a plugin object. */
export type PluginConfig =
  | KnownPluginName
  | (string & {})
  | readonly [KnownPluginName | (string & {}), EntryOptions]
  | Plugin
  | readonly [Plugin, unknown]

/** Tools: a `./path` or package whose default export is a tool or an array of tools, or tools themselves. */
export type ToolConfig = string | Tool | readonly Tool[]

/** The config file's shape (`bosun.config.ts`, `.json`, `.yaml`, `.bosunrc`, `package.json#bosun`). */
export interface BosunConfig {
  /** JSON Schema for editor completion in JSON and YAML configs: `./node_modules/@bosun/core/schema.json`. */
  $schema?: string
  /** Default: the scripted adapter with no options (it echoes). */
  model?: ModelConfig
  /** Default: `'memory'` (nothing survives the process). */
  store?: StoreConfig
  /** The system prompt. Default: empty. */
  system?: string
  /** Plugins in order; the order of taps within a hook is decided by their stages. */
  plugins?: readonly PluginConfig[]
  tools?: readonly ToolConfig[]
  /** Upper bound of tool calls running at once within a step. Default 8. */
  maxParallelTools?: number
  /**
   * Sealing of idle sessions' logs into compressed pages: `false` turns it off, `{ idleMs,
   * pageEvents }` tunes it (default on: 30,000 ms, 256 events a page). See `createAgent`'s `logPages`.
   */
  logPages?: false | LogPagesOptions
}

/** What {@link loadConfig} returns. */
export interface LoadedConfig {
  /** The config as the file gave it (the default config when no file was found). */
  config: BosunConfig
  /** The config file's absolute path; `undefined` when none was found. */
  file: string | undefined
  /** The folder names and relative paths resolve from: the config file's folder, else the cwd. */
  dir: string
}

/** What an entry names. */
export type EntryKind = 'plugin' | 'adapter' | 'store' | 'tool'

/**
 * Modules a caller ships, by package name, each imported only when a config names it:
 * `{ '@bosun/adapter-openai': () => import('@bosun/adapter-openai') }`. The function returns the
 * module's namespace (its default export is taken, as for an installed package).
 */
export type BundledModules = Readonly<Record<string, () => Promise<unknown>>>

/** One thing wrong with a config. */
export interface ConfigProblem {
  /** JSON path in the file: `$.plugins[1][1].turnsPerMinute` (`$.bosun…` inside package.json). */
  path: string
  /** The entry this problem belongs to, as written (`"rate-limit"`, `"./my-plugin.ts"`), or its name. */
  plugin?: string
  /** What `plugin` names. */
  kind?: EntryKind
  /** What was found, what was expected, what to do. Never holds a secret's value. */
  message: string
  /** The underlying error, e.g. of a module that threw on import. */
  cause?: unknown
}

/** A config with every name resolved to the module it names and every option checked. */
export interface ResolvedConfig {
  model: { definition: AdapterDefinition<any>; options: unknown; name: string } | { adapter: ModelAdapter }
  store: { definition: StoreDefinition<any>; options: unknown; name: string } | { store: Store } | 'memory'
  /** With their options as `setup` gets them: each model entry's adapter name resolved to its definition. */
  plugins: PluginEntry[]
  tools: Tool[]
  system: string | undefined
  maxParallelTools: number | undefined
  logPages: false | LogPagesOptions | undefined
  /** The folder relative paths in store options resolve from. */
  dir: string
  /** The config file, for messages. */
  file: string | undefined
}
