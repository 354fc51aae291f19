import { bundledPluginNames } from '../bundled.js'
import type { CommandContext } from '../context.js'
import { ExitCode } from '../exit-codes.js'
import { scanPlugins } from '../plugins-scan.js'
import { table } from '../table.js'
import { safeJson, safeValue } from '../terminal-safe.js'

/**
 * `bosun plugins`: the Bosun plugins installed in `node_modules` from the cwd upward (packages
 * with the keyword `bosun-plugin`): name, version, the hooks their manifest declares, and the
 * short name a config uses — and the plugins bosun brings, which need no install (it told a new
 * user to `npm install @bosun/plugin-retry`, which a config names as "retry" with nothing installed).
 */
export async function pluginsCommand(ctx: CommandContext, options: { json?: boolean }): Promise<number> {
  const plugins = await scanPlugins({ cwd: ctx.io.cwd })
  if (options.json) {
    for (const plugin of plugins) ctx.out.line(safeJson(JSON.stringify(plugin)))
    return ExitCode.ok
  }
  if (plugins.length === 0) {
    ctx.err.line('No Bosun plugins installed: no package with the keyword "bosun-plugin" in node_modules from here upward.')
    ctx.err.line(bundledLine([])!)
    ctx.err.line(ctx.err.style.dim('More on the registry: bosun plugins search <words> (bosun plugins add installs one); or write your own: pnpm create bosun-plugin my-plugin'))
    return ExitCode.ok
  }
  const s = ctx.out.style
  // A package.json's text: control characters are shown, never sent (the printer would let SGR
  // colour sequences through as if they were the CLI's own), as `plugins info` shows a manifest.
  const rows = safeValue(plugins).map((plugin) => [
    plugin.name,
    plugin.version ?? '?',
    plugin.configName,
    plugin.hooks === undefined ? s.dim('(no "bosun.hooks" manifest)') : plugin.hooks.length === 0 ? s.dim('(none)') : plugin.hooks.join(', '),
  ])
  for (const line of table(['PACKAGE', 'VERSION', 'CONFIG NAME', 'HOOKS'], rows, s, ctx.out.columns, 80)) ctx.out.line(line)
  ctx.err.line(s.dim(`Name one in a config by its config name: "plugins": ["${safeValue(plugins[0]!.configName)}"]`))
  const bundled = bundledLine(plugins.map((plugin) => plugin.configName))
  if (bundled !== undefined) ctx.err.line(s.dim(bundled))
  return ExitCode.ok
}

/** The plugins bosun brings that the project has not installed a copy of (an installed copy is the one used). */
function bundledLine(installed: readonly string[]): string | undefined {
  const names = bundledPluginNames().filter((name) => !installed.includes(name))
  if (names.length === 0) return undefined
  return `Bundled with bosun, nothing to install (name one in the config, e.g. "plugins": ["${names[0]}"]): ${names.join(', ')}.`
}
