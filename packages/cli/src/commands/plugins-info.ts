import type { JsonSchema } from '@bosun/core'
import { CORE_VERSION, coreSatisfies, satisfiesRange } from '@bosun/core/config'
import type { CommandContext } from '../context.js'
import { ExitCode } from '../exit-codes.js'
import { readBundledPackage } from '../marketplace/bundled-manifest.js'
import { findOnRegistry, registryClient } from '../marketplace/lookup.js'
import { entryName, undeclaredHooks } from '../marketplace/entry-name.js'
import { fetchOptionsSchema, parseSpec, type BosunManifest } from '../marketplace/manifest.js'
import { optionRows, type OptionRow } from '../marketplace/plugin-options.js'
import type { Style } from '../output.js'
import { table } from '../table.js'
import { safeJson, safeValue } from '../terminal-safe.js'

/**
 * `bosun plugins info <name>`: a package's manifest read from the registry, nothing installed:
 * kind, hooks, the options schema as a table, the `@bosun/core` range against the running core,
 * license, dependencies and install scripts. A plugin the CLI brings that the registry does not
 * have (`retry` on a company mirror) is shown from the CLI's own copy, said to need no install.
 */
export async function pluginsInfoCommand(ctx: CommandContext, spec: string, options: { json?: boolean; registry?: string }): Promise<number> {
  const client = registryClient(ctx, options.registry)
  let found: BosunManifest
  let schema: JsonSchema | undefined
  let bundled = false
  try {
    const { version, manifest } = await findOnRegistry(client, spec)
    found = manifest
    schema = await fetchOptionsSchema(client, version, manifest)
  } catch (error) {
    const own = bundledCopy(error, parseSpec(spec).range)
    if (own === undefined) throw error
    ;({ manifest: found, schema } = own)
    bundled = true
  }
  const compatible = found.coreRange === undefined ? undefined : coreSatisfies(found.coreRange)
  const configName = entryName(found.name, found.kind)
  if (options.json) {
    const core = { range: found.coreRange, running: CORE_VERSION, satisfied: compatible }
    ctx.out.line(safeJson(JSON.stringify({ ...found, configName, bundled, core, options: schema === undefined ? [] : optionRows(schema), schema })))
    return ExitCode.ok
  }
  // Everything below is the package author's text: control characters are shown, never sent.
  const manifest = safeValue(found)
  const rows = schema === undefined ? [] : safeValue(optionRows(schema))
  const s = ctx.out.style
  const lines = describeManifest(manifest, s, compatible)
  if (bundled) lines.splice(1, 0, s.green(`comes with the CLI: no install needed (the registry has no ${manifest.name}; this is the CLI's own copy)`))
  for (const line of lines) ctx.out.line(line)
  ctx.out.line()
  if (schema === undefined) ctx.out.line(`${s.bold('options')}  ${s.dim('(it declares no options schema: "bosun": { "options": "./schema.json" })')}`)
  else if (rows.length === 0) ctx.out.line(`${s.bold('options')}  ${s.dim('(none)')}`)
  else {
    ctx.out.line(`${s.bold('options')}  ${s.dim(`from ${manifest.optionsPath}; * required`)}`)
    for (const line of optionTable(rows, s, ctx.out.columns)) ctx.out.line(`  ${line}`)
  }
  if (bundled) {
    ctx.err.line(s.dim(`Name it in your config as "${configName}": nothing to install.`))
    return ExitCode.ok
  }
  ctx.err.line(s.dim(`Add it: bosun plugins add ${manifest.name}${rows.filter((row) => row.required).map((row) => ` --option ${row.key}=…`).join('')}`))
  return ExitCode.ok
}

/**
 * The CLI's own copy of the package a BUNDLED_WITH_CLI answer names, when it can be read and is
 * the version asked for (`retry@9` is not the bundled 0.4.0: the answer stands).
 */
function bundledCopy(error: unknown, range: string | undefined): ReturnType<typeof readBundledPackage> {
  const { code, details } = error as { code?: string; details?: { package?: unknown } }
  if (code !== 'BUNDLED_WITH_CLI' || typeof details?.package !== 'string') return undefined
  const own = readBundledPackage(details.package)
  if (own === undefined || range === undefined || range === 'latest' || satisfiesRange(own.manifest.version, range)) return own
  return undefined
}

/** The manifest's lines, as `info` and `add` show them (add shows them before it asks). */
export function describeManifest(manifest: BosunManifest, s: Style, compatible: boolean | undefined): string[] {
  const field = (name: string, value: string) => `${s.bold(name.padEnd(16))}${value}`
  const lines = [
    `${s.bold(manifest.name)} ${manifest.version}${manifest.firstParty ? `  ${s.green('first-party')}` : `  ${s.dim('third-party')}`}`,
    ...(manifest.description ? [s.dim(manifest.description)] : []),
    field('kind', manifest.kind ?? '?'),
    field('config name', entryName(manifest.name, manifest.kind)),
    field('hooks', manifest.hooks === undefined ? s.dim(undeclaredHooks(manifest.kind)) : manifest.hooks.length === 0 ? s.dim('(none)') : manifest.hooks.join(', ')),
    field(
      '@bosun/core',
      manifest.coreRange === undefined
        ? s.dim(`(no range declared; running ${CORE_VERSION})`)
        : compatible
          ? `${manifest.coreRange}  ${s.green(`✓ the running @bosun/core ${CORE_VERSION} satisfies it`)}`
          : `${manifest.coreRange}  ${s.red(`✗ the running @bosun/core is ${CORE_VERSION}: it will refuse to load`)}`,
    ),
    field('license', manifest.license ?? s.yellow('(none declared)')),
    field('dependencies', String(manifest.dependencyCount)),
    field(
      'install scripts',
      manifest.installScripts.length === 0
        ? 'none'
        : s.yellow(`⚠ ${manifest.installScripts.join(', ')}: it runs code when installed; a plugin should not need that`),
    ),
  ]
  return lines
}

function optionTable(rows: OptionRow[], s: Style, columns: number | undefined): string[] {
  const cells = rows.map((row) => [`${row.key}${row.required ? '*' : ''}`, row.type, row.default ?? s.dim('-'), row.description ?? ''])
  return table(['KEY', 'TYPE', 'DEFAULT', 'DESCRIPTION'], cells, s, columns === undefined ? undefined : columns - 2, 120)
}
