import { BosunError, optionsError, type Plugin, type PluginContext, type PluginEntry } from '@bosun/core'
import type { Options } from './options.js'
import { SUBAGENT_TOOL_NAMES } from './tools.js'

/**
 * Refuses a profile's `tools` entry that names no tool (a typo would otherwise leave the child
 * without it, silently): `PLUGIN_OPTIONS_INVALID`, at the agent's creation — so `bosun config
 * check` and `bosun run` fail on it. Registered from setup as an `afterSetup` check, so it judges
 * the agent's whole tool set — the config's own and those every plugin added, whatever their
 * order. For a top-level agent only: a child's tools are its profile's, and its own children's
 * profiles name tools of that narrower set by design.
 */
export function checkProfileTools(ctx: PluginContext, options: Options): void {
  if (ctx.session.header.delegation) return
  ctx.afterSetup(({ toolNames }) => {
    const names = toolNames.filter((name) => !isSubagentTool(name))
    const problems = Object.entries(options.agents ?? {}).flatMap(([profile, { tools: wanted = [] }]) =>
      wanted.flatMap((name, index) => (isKnown(name, names) ? [] : [{ profile, index, name }])))
    if (problems.length > 0) throw profileToolsError(ctx, options, problems, names)
  })
}

function isKnown(name: string, names: readonly string[]): boolean {
  return names.includes(name) || isSubagentTool(name)
}

function isSubagentTool(name: string): boolean {
  return (SUBAGENT_TOOL_NAMES as readonly string[]).includes(name)
}

/** An entry's plugin and options (`undefined` for a bare plugin). */
export function splitEntry(entry: PluginEntry): [Plugin, unknown] {
  return Array.isArray(entry) ? [(entry as readonly [Plugin, unknown])[0], entry[1]] : [entry as Plugin, undefined]
}

function pluginOf(entry: PluginEntry): Plugin {
  return splitEntry(entry)[0]
}

/**
 * `Invalid options for plugin "subagents" (plugins[0]):` then a line per entry
 * (`$.agents.researcher.tools[0]: names no tool — did you mean "read-file"? (found "read_file")`),
 * then the tools there are and what to do.
 */
function profileToolsError(
  ctx: PluginContext,
  options: Options,
  problems: readonly { profile: string; index: number; name: string }[],
  names: readonly string[],
): BosunError {
  const lines = problems.map(({ profile, index, name }) => {
    const guess = nearName(name, [...names, ...SUBAGENT_TOOL_NAMES])
    return { keys: ['agents', profile, 'tools', index], message: `names no tool${guess === undefined ? '' : ` — did you mean ${JSON.stringify(guess)}?`}`, found: name }
  })
  const at = pluginIndex(ctx, options)
  const error = optionsError(`plugin "${ctx.name}"${at === undefined ? '' : ` (plugins[${at}])`}`, lines)
  const own = names.length > 0 ? names.join(', ') : 'none'
  const hint =
    `The agent's tools: ${own} (its own and those its plugins add); and the subagent tools (${SUBAGENT_TOOL_NAMES.join(', ')}), which every child gets anyway. ` +
    `A profile's "tools" lists, by name, the tools its children get: correct the name (a tool's name, not its file), or leave "tools" out to give them all.`
  return new BosunError(error.code, `${error.message}\n${hint}`, { details: error.details })
}

/** This plugin's place in the agent's plugins (its entry holds these very options), to say where the problem is. */
function pluginIndex(ctx: PluginContext, options: Options): number | undefined {
  const { plugins } = ctx.config
  const index = plugins.findIndex((entry) => splitEntry(entry)[1] === options)
  if (index >= 0) return index
  const byName = plugins.flatMap((entry, at) => (pluginOf(entry).name === ctx.name ? [at] : []))
  return byName.length === 1 ? byName[0] : undefined
}

/** A tool whose name differs from `name` only in case and separators (`read_file`, `ReadFile` → `read-file`), or is the stem of a file path given instead (`./tools/read-file.ts`). */
function nearName(name: string, names: readonly string[]): string | undefined {
  const key = (value: string) => value.replace(/^.*[\\/]/, '').replace(/\.[cm]?[jt]sx?$/, '').toLowerCase().replace(/[-_\s.]/g, '')
  return names.find((candidate) => key(candidate) === key(name))
}
