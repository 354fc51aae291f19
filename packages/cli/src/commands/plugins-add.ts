import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { candidatePackages, CORE_VERSION, coreSatisfies } from '@bosun/core/config'
import type { JsonSchema } from '@bosun/core'
import { loadCliConfig } from '../agent.js'
import { bundledModules } from '../bundled.js'
import type { CommandContext } from '../context.js'
import { ExitCode } from '../exit-codes.js'
import { addPluginEntry } from '../marketplace/config-edit/config-file.js'
import { confirm } from '../marketplace/confirm.js'
import { entryName as entryNameOf } from '../marketplace/entry-name.js'
import { marketplaceError } from '../marketplace/errors.js'
import { installEnvFor } from '../marketplace/install-env.js'
import { configBeforeInstall } from '../marketplace/install-env-config.js'
import { findOnRegistry, registryClient } from '../marketplace/lookup.js'
import { fetchOptionsSchema } from '../marketplace/manifest.js'
import { shownUrl } from '../marketplace/npm-config.js'
import { detectPackageManager, packageManagerArgs, runPackageManager, shownArgs } from '../marketplace/package-manager.js'
import { checkOptionsAsConfig, optionsFromPairs } from '../marketplace/plugin-options.js'
import { findPackage } from '../packages.js'
import { configName } from '../plugins-scan.js'
import { safeValue } from '../terminal-safe.js'
import { describeManifest } from './plugins-info.js'

export interface PluginsAddOptions {
  option?: string[]
  yes?: boolean
  registry?: string
}

/**
 * `bosun plugins add <name> [--option key=value ...]`: reads the package's manifest and options
 * schema from the registry, checks the options and the core range, shows what will be installed
 * and asks (unless `--yes`), installs it with the project's package manager (its lockfile keeps
 * the integrity), adds the entry to the config file in its own format, then runs `bosun config check`.
 */
export async function pluginsAddCommand(ctx: CommandContext, spec: string, options: PluginsAddOptions): Promise<number> {
  const client = registryClient(ctx, options.registry)
  const { version, manifest } = await findOnRegistry(client, spec)
  const compatible = manifest.coreRange === undefined || coreSatisfies(manifest.coreRange)
  if (!compatible) {
    throw marketplaceError(
      'INCOMPATIBLE_CORE',
      `${manifest.name}@${manifest.version} supports @bosun/core ${manifest.coreRange}, but this bosun runs @bosun/core ${CORE_VERSION}. Nothing was installed. Pick a version made for it (bosun plugins info ${manifest.name}@<version>) or update Bosun.`,
    )
  }
  // Every option is checked against the schema before anything is installed or written. An
  // adapter or a store is not written into the config (`add` says what to set), so options given
  // for it are checked, but none given is no error: its required ones (an adapter's `model`, which
  // for the AI SDK bridge is an object no -o can give) are set in the config by hand.
  const schema = await fetchOptionsSchema(client, version, manifest)
  const written = manifest.kind !== 'adapter' && manifest.kind !== 'store'
  const pairs = options.option ?? []
  // What is not written need not be whole: each option given is checked, not which are missing
  // (`-o baseURL=…` for an adapter whose `model` goes in by hand, or is an object no -o can give).
  const checked = written || schema === undefined ? schema : withoutRequired(schema)
  const pluginOptions = written || pairs.length > 0 ? optionsFromPairs(pairs, checked, manifest.name) : {}
  if (written || pairs.length > 0) {
    await checkOptionsAsConfig(pluginOptions, checked, manifest.name, { dir: ctx.io.cwd, env: ctx.io.env, bundled: bundledModules() })
  }

  const manager = detectPackageManager(ctx.io.cwd)
  const s = ctx.err.style
  const installSpec = `${manifest.name}@${manifest.version}`
  for (const line of describeManifest(safeValue(manifest), s, true)) ctx.err.line(line)
  ctx.err.line(`${s.bold('from'.padEnd(16))}${shownUrl(new URL('/', typeof version.dist?.tarball === 'string' ? version.dist.tarball : client.config.registry).href)}`)
  ctx.err.line(`${s.bold('install with'.padEnd(16))}${manager.name} ${shownArgs(packageManagerArgs(manager.name, 'add', installSpec, options.registry))}  ${s.dim(`(${manager.reason}, in ${relative(ctx.io.cwd, manager.dir) || '.'})`)}`)
  // Read before installing: its …Env options name the variables the install scripts must not see.
  // A config that cannot load yet (a TS config importing this very package) does not stop the
  // install: the variables its text names after a …Env key and the names' patterns then choose,
  // and the user is told so (never why: the error could quote the config).
  const cfg = await configBeforeInstall(() => loadCliConfig(ctx.io, ctx.configFile))
  const installEnv = installEnvFor(manager.dir, ctx.io.env, cfg.loaded?.raw.config, cfg.namedInText)
  if (cfg.loaded === undefined) {
    const which = cfg.file === undefined ? 'the config' : relative(ctx.io.cwd, cfg.file) || cfg.file
    ctx.err.line(`${s.bold('config'.padEnd(16))}${s.yellow(`${which} could not be read`)}  ${s.dim("(what is withheld: the names its text gives …Env options, and by the names' patterns; bosun config check says why)")}`)
  }
  const already = manifest.kind === 'plugin' ? entriesNaming(cfg.loaded?.raw.config.plugins, manifest.name) : 0
  if (already > 0) {
    // A second entry is a second instance (both run: the old options still apply), not a change
    // of options, which is what adding a configured plugin again usually means.
    ctx.err.line(
      `${s.bold('already'.padEnd(16))}${s.yellow(`the config's plugins name ${manifest.name} ${already === 1 ? 'once' : `${already} times`}: this adds another instance beside ${already === 1 ? 'it' : 'them'}, and ${already === 1 ? 'it keeps' : 'they keep'} running with ${already === 1 ? 'its' : 'their'} options. To change options, edit the entry instead (or bosun plugins remove ${configName(manifest.name)} first).`)}`,
    )
  }
  const installed = findPackage(manager.dir, manifest.name)?.version
  if (installed !== undefined && installed !== manifest.version) {
    // One package serves every entry: installing another version replaces the one the config
    // runs. Adding it again is how a user would try to update it, which also adds an entry.
    const update = already > 0 ? `, which the config's ${already === 1 ? 'entry runs' : 'entries run'}: this installs ${manifest.version} in its place, for every entry. To change only the version, without a second entry: ${manager.name} ${shownArgs(packageManagerArgs(manager.name, 'add', installSpec, options.registry))}` : `: this installs ${manifest.version} in its place.`
    ctx.err.line(`${s.bold('installed'.padEnd(16))}${s.yellow(`${manifest.name} ${safeValue(installed)}${update}`)}`)
  }
  if (installEnv.withheld.length > 0) ctx.err.line(`${s.bold('withheld'.padEnd(16))}${installEnv.withheld.join(', ')}  ${s.dim(`(not passed to ${manager.name}: its install scripts do not see them)`)}`)
  if (!options.yes && !(await confirm(ctx.io, `Install ${installSpec} and add it to the config?`))) {
    throw marketplaceError('NOT_CONFIRMED', 'not confirmed: nothing was installed or written. Answer "y", or pass --yes.')
  }

  await runPackageManager(manager, packageManagerArgs(manager.name, 'add', installSpec, options.registry), installEnv, (text) => ctx.err.write(text))

  const entryName = entryNameOf(manifest.name, manifest.kind)
  const entry = Object.keys(pluginOptions).length === 0 ? entryName : [entryName, pluginOptions]
  if (!written) {
    const given = Object.keys(pluginOptions).length > 0
    const key = manifest.kind === 'adapter' ? `"model": { "adapter": ${JSON.stringify(entryName)}, "options": ${given ? JSON.stringify(pluginOptions) : '{…}'} }` : `"store": ${JSON.stringify(entry)}`
    const required = schema !== undefined && !given && requiresOptions(schema) ? ` Its options (some are required): bosun plugins info ${manifest.name}.` : ''
    ctx.err.line(`Installed ${installSpec}. It is ${manifest.kind === 'adapter' ? 'an adapter' : 'a store'}: it replaces the config's ${manifest.kind === 'adapter' ? 'model' : 'store'}; set ${key} in your config.${required}`)
    return ExitCode.ok
  }

  let file = cfg.file
  if (file === undefined) {
    file = join(manager.dir, 'bosun.config.json')
    if (!existsSync(file)) await writeFile(file, `${JSON.stringify({ plugins: [entry] }, null, 2)}\n`)
    ctx.err.line(`Wrote ${relative(ctx.io.cwd, file)} with "plugins": [${JSON.stringify(entry)}].`)
  } else {
    const result = await addPluginEntry(file, entry)
    if (!result.edited) {
      ctx.err.line(s.yellow(`Installed ${installSpec}, but ${relative(ctx.io.cwd, file)} could not be edited safely; ${result.instruction}`))
      return ExitCode.error
    }
    ctx.err.line(`Added ${JSON.stringify(entry)} to "plugins" in ${relative(ctx.io.cwd, file) || file}.`)
  }
  ctx.err.line(s.dim('Checking the config (bosun config check):'))
  const { configCheckCommand } = await import('./config.js')
  try {
    return await configCheckCommand(ctx)
  } catch (error) {
    // The package is installed and named in the config, which now fails to load: every bosun run
    // would fail with the error below. Say what state things are in and both ways out, before the
    // error. Not "because of it": the config may have failed before (another plugin's setup), and
    // the error names what failed.
    ctx.err.line(
      s.yellow(
        `${installSpec} is installed and in ${relative(ctx.io.cwd, file) || file}, but the config does not load (the error below says why): fix what it names, or take ${entryName} out again with: bosun plugins remove ${entryName}`,
      ),
    )
    throw error
  }
}

/** The schema without what makes options required at its top (`required`, and the branches that each require some). */
function withoutRequired(schema: JsonSchema): JsonSchema {
  const { required: _required, oneOf: _oneOf, anyOf: _anyOf, ...rest } = schema as Record<string, unknown>
  return rest as JsonSchema
}

/** Whether a schema asks for options at all: a top-level `required`, or branches that each require some. */
function requiresOptions(schema: JsonSchema): boolean {
  const { required, oneOf, anyOf } = schema as { required?: unknown; oneOf?: unknown; anyOf?: unknown }
  return (Array.isArray(required) && required.length > 0) || Array.isArray(oneOf) || Array.isArray(anyOf)
}

/** How many entries of a config's `plugins` name `packageName` (by its short or full name). */
function entriesNaming(plugins: unknown, packageName: string): number {
  if (!Array.isArray(plugins)) return 0
  return plugins.filter((entry) => {
    const name = Array.isArray(entry) ? entry[0] : entry
    return typeof name === 'string' && (name === packageName || candidatePackages(name, 'plugin').includes(packageName))
  }).length
}
