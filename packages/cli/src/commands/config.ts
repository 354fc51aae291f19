import { relative } from 'node:path'
import { createStore, memoryStore, type AgentHooks, type Plugin } from '@bosun/core'
import { candidatePackages, type EntryKind, type ResolvedConfig } from '@bosun/core/config'
import { DEFAULT_SESSIONS_DIR, checkConfig, loadCliConfig, openAgent, type CliConfig } from '../agent.js'
import { bundledFor } from '../bundled.js'
import type { CommandContext } from '../context.js'
import { ExitCode } from '../exit-codes.js'
import { oneLine } from '../output.js'
import { findPackage, ownDependencyVersion } from '../packages.js'
import { describeOptions, redact } from '../redact.js'

/**
 * `bosun config check`: loads and checks the config — every problem is reported at once, each
 * with the file and its JSON path (the loader's `CONFIG_INVALID`) — or prints a summary of the
 * agent it composes: adapter and model, store, system prompt, plugins in order with the hooks
 * they tap, tools. Option values that look like secrets are never printed.
 */
export async function configCheckCommand(ctx: CommandContext): Promise<number> {
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const resolved = await checkConfig(cfg)
  // The store is made, and closed at once — not used: nothing connects, nothing is written — so
  // that what its options are checked for only when it is made is reported here too, as serve and
  // run report it: a URL a store-postgres "urlEnv" names that is malformed (a password with an
  // unencoded "#"), never shown. The config's schema check cannot see a variable's value.
  if (cfg.defaultStoreDir === undefined && resolved.store !== 'memory' && 'definition' in resolved.store) {
    await (await createStore(resolved.store.definition, resolved.store.options, { baseDir: cfg.dir })).close()
  }
  // Build the agent for real (on a throwaway memory store): setups run, so the taps are the true ones.
  const agent = await openAgent(cfg, memoryStore())
  const taps = tapsByName(agent.hooks)
  await agent.close()

  const s = ctx.out.style
  const cwd = ctx.io.cwd
  const field = (name: string, value: string) => ctx.out.line(`${s.bold(name.padEnd(9))}${value}`)
  const more = (value: string) => ctx.out.line(`${' '.repeat(9)}${value}`)
  const config = cfg.raw.config

  field('config', cfg.file === undefined ? `none found (searched from ${cwd} up to the project root): the defaults apply` : relative(cwd, cfg.file) || cfg.file)

  const modelSpec = config.model?.adapter ?? 'scripted'
  const modelOptions = 'definition' in resolved.model ? resolved.model.options : undefined
  const adapter = 'definition' in resolved.model ? resolved.model.definition.name : resolved.model.adapter.name
  field('adapter', `${s.cyan(adapter)}  ${s.dim(source(cfg, 'adapter', modelSpec, 'model'))}`)
  const modelId = (modelOptions as { model?: unknown } | undefined)?.model ?? ('adapter' in resolved.model ? resolved.model.adapter.model : undefined)
  const modelObject = aiSdkModel(modelId)
  // A model object (the ai-sdk bridge's) is named on the model line: dumped, it is the provider's internals.
  const shown = modelObject === undefined ? modelOptions : withoutModel(modelOptions)
  if (shown !== undefined && Object.keys(shown as object).length > 0) more(`options: ${describeOptions(shown)}`)
  // Redacted like the options line: a key pasted into the wrong field is still a key.
  field(
    'model',
    modelObject !== undefined ? `${modelObject.modelId}  ${s.dim(`(provider ${modelObject.provider}, an AI SDK model object)`)}`
    : typeof modelId === 'string' ? String(redact(modelId, 'model'))
    : s.dim("(the adapter's default)"),
  )

  if (cfg.defaultStoreDir !== undefined) {
    field('store', `${s.cyan('store-jsonl')}  ${s.dim(source(cfg, 'store', 'store-jsonl', 'default'))}`)
    // With no config file the folder is the current one: there is no config to be next to.
    const where = cfg.file === undefined ? 'in the current folder: there is no config' : 'next to the config, which names no store'
    more(`dir: ${relative(cwd, cfg.defaultStoreDir) || '.'} ${s.dim(`(${DEFAULT_SESSIONS_DIR} ${where})`)}`)
  } else if (resolved.store === 'memory') {
    field('store', `${s.cyan('memory')}  ${s.dim('(sessions do not outlive the process)')}`)
  } else {
    const entry: unknown = config.store
    const spec = Array.isArray(entry) ? entry[0] : entry
    const name = 'definition' in resolved.store ? resolved.store.definition.name : resolved.store.store.name
    field('store', `${s.cyan(name)}  ${s.dim(source(cfg, 'store', spec, 'store'))}`)
    if ('definition' in resolved.store && resolved.store.options !== undefined) more(`options: ${describeOptions(resolved.store.options)}`)
  }

  field('system', resolved.system ? `${JSON.stringify(oneLine(resolved.system, 70))} ${s.dim(`(${resolved.system.length} character${resolved.system.length === 1 ? '' : 's'})`)}` : s.dim('(none)'))

  const plugins = pluginEntries(resolved)
  if (plugins.length === 0) field('plugins', s.dim('(none)'))
  const rawPlugins: readonly unknown[] = Array.isArray(config.plugins) ? config.plugins : []
  plugins.forEach(({ plugin, options }, index) => {
    const raw = rawPlugins[index]
    const spec = Array.isArray(raw) ? raw[0] : raw
    const line = `${index + 1}. ${s.cyan(plugin.name)}  ${s.dim(source(cfg, 'plugin', spec))}`
    if (index === 0) field('plugins', line)
    else more(line)
    // The options as written: a model entry in them was resolved to an adapter definition, which is not what the user wrote.
    const written = Array.isArray(raw) && raw.length > 1 ? raw[1] : options
    if (written !== undefined) more(`   options: ${describeOptions(written)}`)
    const hooks = taps.get(plugin.name)
    taps.delete(plugin.name)
    more(`   hooks: ${hooks && hooks.size > 0 ? [...hooks].join(', ') : s.dim('(taps none)')}`)
  })

  field('tools', resolved.tools.length === 0 ? s.dim('(none)') : resolved.tools.map((tool) => tool.name).join(', '))
  if (resolved.maxParallelTools !== undefined) field('parallel', `at most ${resolved.maxParallelTools} tool calls at once`)
  for (const [name, hooks] of taps) more(s.dim(`tap "${name}" (not named after a listed plugin): ${[...hooks].join(', ')}`))
  ctx.out.line()
  ctx.out.line(s.green('✓ the config is valid'))
  return ExitCode.ok
}

/**
 * An AI SDK language model object (`openai.chat('gpt-4.1-nano')`, given to the ai-sdk bridge in a
 * TypeScript config): its `provider` and `modelId`, the modelId redacted as a model string is.
 * Anything else: undefined.
 */
export function aiSdkModel(value: unknown): { provider: string; modelId: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { provider, modelId, specificationVersion } = value as { provider?: unknown; modelId?: unknown; specificationVersion?: unknown }
  if (typeof provider !== 'string' || typeof modelId !== 'string' || typeof specificationVersion !== 'string') return undefined
  return { provider: String(redact(provider, 'provider')), modelId: String(redact(modelId, 'model')) }
}

function withoutModel(options: unknown): unknown {
  if (typeof options !== 'object' || options === null) return options
  const { model: _model, ...rest } = options as Record<string, unknown>
  return rest
}

/** Hook names by tap name, across every hook of the agent. */
function tapsByName(hooks: AgentHooks): Map<string, Set<string>> {
  const byName = new Map<string, Set<string>>()
  for (const hook of Object.values(hooks) as { name?: string; taps: { name: string }[] }[]) {
    for (const tap of hook.taps) {
      const set = byName.get(tap.name) ?? new Set<string>()
      set.add(hook.name ?? 'unknown')
      byName.set(tap.name, set)
    }
  }
  return byName
}

function pluginEntries(resolved: ResolvedConfig): { plugin: Plugin; options: unknown }[] {
  return resolved.plugins.map((entry) => (Array.isArray(entry) ? { plugin: entry[0] as Plugin, options: entry[1] } : { plugin: entry as Plugin, options: undefined }))
}

/** Where an entry comes from: `@bosun/plugin-retry 0.1.0`, `./my-plugin.ts`, `@bosun/adapter-scripted 0.0.0, bundled with bosun`. */
function source(cfg: CliConfig, kind: EntryKind, spec: unknown, section?: 'model' | 'store' | 'default'): string {
  if (section === 'default' || (section !== undefined && cfg.bundled.has(section))) {
    const pkg = section === 'default' ? '@bosun/plugin-store-jsonl' : cfg.bundled.get(section)!
    const version = ownDependencyVersion(pkg)
    return `${pkg}${version ? ` ${version}` : ''} (${section === 'default' ? "the CLI's default store" : 'bundled with bosun'})`
  }
  if (typeof spec !== 'string') return '(given as an object in the config)'
  if (spec.startsWith('.') || spec.startsWith('/')) return spec
  for (const candidate of candidatePackages(spec, kind)) {
    const found = findPackage(cfg.dir, candidate)
    if (found) return `${candidate} ${found.version ?? ''}`.trim()
  }
  // Not installed in the project: the CLI's own copy stands in (the model's and store's are in `cfg.bundled`).
  const shipped = kind === 'plugin' ? bundledFor(cfg.dir, spec, kind) : undefined
  if (shipped !== undefined) {
    const version = ownDependencyVersion(shipped)
    return `${shipped}${version ? ` ${version}` : ''} (bundled with bosun)`
  }
  return spec
}
