import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { candidatePackages } from '@bosun/core/config'
import { loadCliConfig } from '../agent.js'
import type { CommandContext } from '../context.js'
import { ExitCode } from '../exit-codes.js'
import { importedBy, removePluginEntry } from '../marketplace/config-edit/config-file.js'
import { marketplaceError } from '../marketplace/errors.js'
import { installEnvFor } from '../marketplace/install-env.js'
import { detectPackageManager, packageManagerArgs, runPackageManager } from '../marketplace/package-manager.js'

/**
 * `bosun plugins remove <name>`: undoes `add` — the config's entries naming the package are
 * removed (the file keeps its format), then the package manager removes the package. The config
 * is edited first, so it never names a package that is gone.
 */
export async function pluginsRemoveCommand(ctx: CommandContext, name: string): Promise<number> {
  const manager = detectPackageManager(ctx.io.cwd)
  const dependencies = projectDependencies(join(manager.dir, 'package.json'))
  // `word-guard` means the package the config would load for it; a full name means itself.
  const packageName = [name, ...candidatePackages(name, 'plugin')].find((candidate) => dependencies.has(candidate)) ?? name
  const matches = (entry: string) => entry === packageName || candidatePackages(entry, 'plugin').includes(packageName)

  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const s = ctx.err.style
  // A config that imports the package names it by an object no entry name matches: uninstalling
  // it would leave a config that no longer loads ("Cannot find module"), with nothing said.
  const imported = cfg.file === undefined ? undefined : await importedBy(cfg.file, packageName)
  if (imported !== undefined) {
    const shown = relative(ctx.io.cwd, cfg.file!) || cfg.file!
    ctx.err.line(s.yellow(`${shown} imports ${packageName} ('${imported}'): take that import, and the plugins entry that uses it, out of ${shown} first, then run bosun plugins remove ${name} again. Nothing was uninstalled.`))
    return ExitCode.error
  }
  let inConfig = false
  if (cfg.file !== undefined) {
    const result = await removePluginEntry(cfg.file, matches)
    if (result !== 'absent') {
      inConfig = true
      if (!result.edited) {
        ctx.err.line(s.yellow(`${relative(ctx.io.cwd, cfg.file)} could not be edited safely; ${result.instruction}. Nothing was uninstalled.`))
        return ExitCode.error
      }
      ctx.err.line(`Removed ${packageName} from "plugins" in ${relative(ctx.io.cwd, cfg.file) || cfg.file}.`)
    }
  }
  if (!dependencies.has(packageName)) {
    if (inConfig) return ExitCode.ok
    throw marketplaceError('NOT_ADDED', `${name} is neither in the config's plugins nor a dependency in ${relative(ctx.io.cwd, join(manager.dir, 'package.json')) || 'package.json'}: nothing to remove. bosun plugins lists what is installed.`)
  }
  // The config as it was before the edit: the removed entry's …Env names are withheld too.
  const installEnv = installEnvFor(manager.dir, ctx.io.env, cfg.raw.config)
  await runPackageManager(manager, packageManagerArgs(manager.name, 'remove', packageName, undefined), installEnv, (text) => ctx.err.write(text))
  ctx.err.line(`Uninstalled ${packageName} (${manager.name}).`)
  return ExitCode.ok
}

/** Every package the project's package.json depends on, of any kind. */
function projectDependencies(file: string): Set<string> {
  try {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string> | undefined>
    return new Set(['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {})))
  } catch {
    return new Set()
  }
}
