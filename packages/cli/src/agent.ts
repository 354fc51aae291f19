import { resolve } from 'node:path'
import { createStore, memoryStore, type Agent, type Store } from '@bosun/core'
import { createAgentFromConfig, loadConfig, validateConfig, type BundledModules, type LoadedConfig, type OnConfigStage, type ResolvedConfig } from '@bosun/core/config'
import { bundledModules, withBundledFallbacks } from './bundled.js'
import { explainConfigPath } from './config-path.js'
import { redact } from './redact.js'
import { CliErrorCodes, cliError } from './errors.js'
import type { Io } from './io.js'
import { checkSessionId } from './session-id.js'
import { sessionNotFound } from './session-not-found.js'
import { configStages, during } from './stall.js'
// The JSONL store, the scripted adapter and the session reader load where they are used: `bosun
// config check` on a config without a JSONL store, for one, needs none of them.
import type { SessionLog, SessionReader } from './session-reader.js'

/** Where sessions go when the config names no store: `.bosun/sessions` next to the config file (or in the cwd). */
export const DEFAULT_SESSIONS_DIR = '.bosun/sessions'

/** The config as the CLI uses it: loaded (not yet checked), with its defaults and bundled fallbacks applied. */
export interface CliConfig {
  /** The config as loaded, names as written. */
  raw: LoadedConfig
  /** The config to check and build from. */
  loaded: LoadedConfig
  /** The config file, or `undefined` when none was found (the defaults apply). */
  file: string | undefined
  /** The folder names and relative paths resolve from. */
  dir: string
  /** The JSONL folder the CLI uses because the config names no store; `undefined` when it names one. */
  defaultStoreDir: string | undefined
  /** Packages the model and store are taken from in the CLI's own install (the config's folder has none of them). */
  bundled: Map<'model' | 'store', string>
  /** The CLI's own copies of Bosun's parts, for names the config's folder does not resolve (see bundled.ts). */
  modules: BundledModules
  env: Io['env']
}

/** How sessions are kept, as far as the CLI can tell without opening the store. */
export type StoreKind = { kind: 'memory' } | { kind: 'jsonl'; dir: string } | { kind: 'other'; name: string }

/**
 * Finds and loads the config (`--config <file>`, else searched from the cwd up to the project
 * root). Nothing is imported or checked yet: each command checks what it needs.
 */
export async function loadCliConfig(io: Io, configFile: string | undefined): Promise<CliConfig> {
  const raw = await during({ doing: 'loading the config' }, () =>
    loadConfig({ cwd: io.cwd, ...(configFile === undefined ? {} : { file: configFile }), validate: false, env: io.env, onStage: configStages(undefined, undefined) }),
  ).catch(async (error: unknown) => {
    throw configFile === undefined ? error : await explainConfigPath(error, io.cwd, configFile)
  })
  const { loaded, bundled } = await withBundledFallbacks(raw)
  const named = typeof raw.config === 'object' && raw.config !== null && raw.config.store !== undefined
  const cfg: CliConfig = {
    raw,
    loaded,
    file: raw.file,
    dir: raw.dir,
    defaultStoreDir: named ? undefined : resolve(raw.dir, DEFAULT_SESSIONS_DIR),
    bundled,
    modules: bundledModules(),
    env: io.env,
  }
  loadedConfigs.set(io, cfg)
  return cfg
}

/** The config each command line loaded, by its `io`: a store error is printed with where its folder came from (store-hint.ts). */
const loadedConfigs = new WeakMap<Io, CliConfig>()

/** The config the command line run with `io` loaded last, if it got that far. */
export function loadedConfigOf(io: Io): CliConfig | undefined {
  return loadedConfigs.get(io)
}

/** What the config's store is, from the config alone. */
export function storeKind(cfg: CliConfig): StoreKind {
  if (cfg.defaultStoreDir !== undefined) return { kind: 'jsonl', dir: cfg.defaultStoreDir }
  const entry: unknown = cfg.loaded.config.store
  const [spec, options] = Array.isArray(entry) ? [entry[0], entry[1]] : [entry, undefined]
  if (spec === 'memory') return { kind: 'memory' }
  const name = typeof spec === 'string' ? spec : (spec as { name?: unknown } | undefined)?.name
  const isJsonl = name === 'store-jsonl' || name === '@bosun/plugin-store-jsonl' || name === 'bosun-plugin-store-jsonl'
  const dir = (options as { dir?: unknown } | undefined)?.dir
  if (isJsonl && typeof dir === 'string') return { kind: 'jsonl', dir: resolve(cfg.dir, dir) }
  return { kind: 'other', name: typeof name === 'string' ? name : 'custom store' }
}

/**
 * Opens the store the config names (only the `store` entry is checked, so a missing API key does
 * not stop `bosun log`), or the default JSONL store. The caller closes it.
 */
export async function openStore(cfg: CliConfig): Promise<Store> {
  if (cfg.defaultStoreDir !== undefined) return (await import('@bosun/plugin-store-jsonl')).jsonlStore({ dir: cfg.defaultStoreDir })
  // The store alone, beside the CLI's own scripted adapter: a config without a model would
  // otherwise make the loader look for the default adapter in the project (absent under pnpm).
  const { default: scripted } = await import('@bosun/adapter-scripted')
  const storeOnly: LoadedConfig = { ...cfg.loaded, config: { store: cfg.loaded.config.store, model: { adapter: scripted } } }
  return during({ doing: `opening the store ${configLabel(cfg)} names (importing and creating it)` }, async () => {
    const resolved = await validateConfig(storeOnly, { env: cfg.env, bundled: cfg.modules }).catch(async (error: unknown) => {
      // A broken store entry: report every problem of the config at once, not only the store's.
      await validateConfig(cfg.loaded, { env: cfg.env, bundled: cfg.modules })
      throw error
    })
    if (resolved.store === 'memory') return memoryStore()
    if ('store' in resolved.store) return resolved.store.store
    return createStore(resolved.store.definition, resolved.store.options, { baseDir: cfg.dir })
  })
}

/** Resolves and checks everything the config names (importing its modules), as `validateConfig` does. */
export async function checkConfig(cfg: CliConfig): Promise<ResolvedConfig> {
  return during({ doing: `checking ${configLabel(cfg)} (importing the adapter, store, plugins and tools it names)` }, () => validateConfig(cfg.loaded, { env: cfg.env, bundled: cfg.modules }))
}

/** Refuses a memory store for commands that read sessions kept by earlier runs. */
export function requirePersistentStore(cfg: CliConfig): void {
  if (storeKind(cfg).kind === 'memory') {
    throw cliError(
      CliErrorCodes.NO_PERSISTENT_STORE,
      `The config ${cfg.file ?? ''} keeps sessions in memory ("store": "memory"), so no session outlives its process. Name a store, e.g. "store": ["store-jsonl", { "dir": ".bosun/sessions" }].`,
    )
  }
}

/**
 * Builds the agent the config describes on `store`, resuming `sessionId` if the store has it (a
 * new session without it). The agent does not own the store: close the agent, then the store.
 * Plugin setups are tracked as waits, so that one that never settles is named (stall.ts);
 * `watch` is told of each setup too (`bosun serve` names a slow one: slow-setup.ts).
 */
export async function openAgent(cfg: CliConfig, store: Store, sessionId?: string, signal?: AbortSignal, watch?: OnConfigStage): Promise<Agent> {
  const waits = configStages(cfg.file, configObject(cfg).plugins)
  const onStage: OnConfigStage = watch === undefined ? waits : (stage) => {
    const ended = [waits(stage), watch(stage)]
    return () => ended.forEach((end) => end?.())
  }
  return during({ doing: `building the agent ${configLabel(cfg)} describes (importing what it names, opening the session)` }, () =>
    createAgentFromConfig(cfg.loaded, { store, env: cfg.env, bundled: cfg.modules, onStage, ...(sessionId === undefined ? {} : { sessionId }), ...(signal === undefined ? {} : { signal }) }),
  )
}

/** True when the store holds a session with this id. */
export async function sessionExists(store: Store, id: string): Promise<boolean> {
  return (await store.list()).some((summary) => summary.id === id)
}

/** Fails with SESSION_NOT_FOUND (naming where it looked, and a stored id near the one given) unless the store has the session. */
export async function requireSession(cfg: CliConfig, store: Store, id: string, cwd?: string): Promise<void> {
  const ids = (await store.list()).map((summary) => summary.id)
  if (ids.includes(checkSessionId(id))) return
  throw sessionNotFound(id, describeStore(cfg, cwd), ids)
}

/** Where sessions are kept, for messages: `.bosun/sessions (JSONL)`. */
export function describeStore(cfg: CliConfig, cwd?: string): string {
  const kind = storeKind(cfg)
  if (kind.kind === 'memory') return 'the memory store'
  if (kind.kind === 'jsonl') return `${relativeTo(kind.dir, cwd)} (JSONL)`
  return `the ${kind.name} store`
}

/** Runs `use` with the store, closing it afterwards (a close failure after a failure is not reported twice). */
export async function withStore<T>(cfg: CliConfig, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(cfg)
  let result: T
  try {
    result = await use(store)
  } catch (error) {
    await store.close().catch(() => {})
    throw error
  }
  await store.close()
  return result
}

/** A short label for the model: `scripted`, `openai gpt-4o-mini`. */
export function modelLabel(cfg: CliConfig): string {
  const model = configObject(cfg).model
  const adapter = model?.adapter ?? 'scripted'
  const name = typeof adapter === 'string' ? adapter : ((adapter as { name?: string }).name ?? 'custom')
  const id = (model?.options as { model?: unknown } | undefined)?.model
  return typeof id === 'string' ? `${name} ${String(redact(id, 'model'))}` : name
}

/** The config's `plugins` as written (undefined when it has none), to name an entry as the user wrote it. */
export function configPlugins(cfg: CliConfig): readonly unknown[] | undefined {
  return configObject(cfg).plugins
}

/**
 * The config's top-level object — or none (`{}`) when the file holds something else: `null` (a
 * YAML file of comments only, JSON `null`), an array, a string. Building the agent reports that
 * (`$: must be a config object …`); what reads the config before it must not fail first with a
 * TypeError (`bosun run` said `error UNEXPECTED: Cannot read properties of null`).
 */
function configObject(cfg: CliConfig): Partial<LoadedConfig['config']> {
  const config: unknown = cfg.loaded.config
  return typeof config === 'object' && config !== null && !Array.isArray(config) ? (config as LoadedConfig['config']) : {}
}

/** `the config /app/bosun.config.json`, or `the default config`, for messages. */
function configLabel(cfg: CliConfig): string {
  return cfg.file === undefined ? 'the default config' : `the config ${cfg.file}`
}

function relativeTo(path: string, cwd: string | undefined): string {
  if (cwd === undefined) return path
  const rel = path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path
  return rel === '' ? '.' : rel
}


/** Read-only access to the config's sessions (JSONL files are read directly, other stores through the store). */
export async function openReader(cfg: CliConfig): Promise<SessionReader> {
  requirePersistentStore(cfg)
  const kind = storeKind(cfg)
  const { jsonlReader, storeReader } = await import('./session-reader.js')
  if (kind.kind === 'jsonl') return jsonlReader(kind.dir)
  return storeReader(await openStore(cfg))
}

/** Reads one session, or fails with SESSION_NOT_FOUND naming where it looked (and a stored id near the one given). */
export async function readSession(cfg: CliConfig, reader: SessionReader, id: string, cwd?: string): Promise<SessionLog> {
  const log = await reader.read(checkSessionId(id))
  if (log !== undefined) return log
  // Listed only now: the ids near the one typed, for a "did you mean".
  throw sessionNotFound(id, describeStore(cfg, cwd), (await reader.list()).map((summary) => summary.id))
}
