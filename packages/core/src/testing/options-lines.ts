// For the tests of a package's options: each mistake must read the same from code
// (`assertOptions`) and from a config file, where the config only puts the entry's path in front.
import { expect } from 'vitest'
import type { AdapterDefinition } from '../adapter.js'
import { validateConfig } from '../config/validate.js'
import { createAgent } from '../create-agent.js'
import { BosunError } from '../errors.js'
import type { ModelAdapter } from '../model.js'
import type { Plugin } from '../plugin.js'
import type { StoreDefinition } from '../store/define-store.js'

/** One mistake: the options, and the line (`$.path: problem (found …)`) code callers get for it. */
export type OptionsCase = readonly [options: unknown, line: string]

/** An adapter a config can name that is never created (validateConfig does not create). */
const model = { adapter: { kind: 'bosun-adapter', name: 'stand-in', create: () => ({}) } }

/** Where a config gives the options to each kind of definition, and the word its lines name it by. */
const ENTRIES = {
  'bosun-store': { under: '$.store[1]', word: 'store', config: (definition: unknown, options: unknown) => ({ model, store: [definition, options] }) },
  'bosun-adapter': { under: '$.model.options', word: 'adapter', config: (definition: unknown, options: unknown) => ({ model: { adapter: definition, options } }) },
  'bosun-plugin': { under: '$.plugins[0][1]', word: 'plugin', config: (definition: unknown, options: unknown) => ({ model, plugins: [[definition, options]] }) },
}

/**
 * Checks that a config file giving each case's options to `definition` (the store, the model's
 * adapter, or the first plugin) is refused with the case's line under the entry's options path:
 * `$.store[1].batchWindowMs (store "store-sqlite"): must be >= 0 (found -1)`.
 */
export async function expectConfigLines(
  definition: StoreDefinition<never> | AdapterDefinition<never> | Plugin<never>,
  cases: readonly OptionsCase[],
): Promise<void> {
  const entry = ENTRIES[definition.kind]
  for (const [options, line] of cases) {
    const config = entry.config(definition, options)
    const error = await validateConfig({ config: config as never, file: '/project/bosun.config.ts', dir: '/project' }, { env: {} }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'CONFIG_INVALID'), line).toBe(true)
    const [path, problem] = line.split(/: (.*)/s) as [string, string]
    expect((error as Error).message).toContain(`  - ${entry.under}${path.slice(1)} (${entry.word} "${definition.name}"): ${problem}`)
  }
}

/** A model for agents that are never run: the options are refused first. */
const standIn: ModelAdapter = { name: 'stand-in', stream: () => (async function* () {})() }

/**
 * Checks that `createAgent` refuses `plugin` with each case's options with `PLUGIN_OPTIONS_INVALID`
 * and the case's line alone under `Invalid options for plugin "<name>" (plugins[0]):`.
 */
export async function expectPluginCodeLines(plugin: Plugin<never>, cases: readonly OptionsCase[]): Promise<void> {
  for (const [options, line] of cases) {
    const error = await createAgent({ model: standIn, plugins: [[plugin, options as never]] }).then(
      async (agent) => agent.close(),
      (e: unknown) => e,
    )
    expect(error, line).toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', message: `Invalid options for plugin "${plugin.name}" (plugins[0]):\n  - ${line}` })
  }
}

/** Checks that `create` (the package's function) throws `INVALID_ARGUMENT` with each case's line alone under `Invalid options for <what>:`. */
export function expectCodeLines(create: (options: never) => unknown, what: string, cases: readonly OptionsCase[]): void {
  for (const [options, line] of cases) {
    expect(() => create(options as never), line).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: `Invalid options for ${what}:\n  - ${line}` }))
  }
}
