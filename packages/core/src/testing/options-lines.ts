// For the tests of a package's options: each mistake must read the same from code
// (`assertOptions`) and from a config file, where the config only puts the entry's path in front.
import { expect } from 'vitest'
import type { AdapterDefinition } from '../adapter.js'
import { validateConfig } from '../config/validate.js'
import { BosunError } from '../errors.js'
import type { StoreDefinition } from '../store/define-store.js'

/** One mistake: the options, and the line (`$.path: problem (found …)`) code callers get for it. */
export type OptionsCase = readonly [options: unknown, line: string]

/** An adapter a config can name that is never created (validateConfig does not create). */
const model = { adapter: { kind: 'bosun-adapter', name: 'stand-in', create: () => ({}) } }

/**
 * Checks that a config file giving each case's options to `definition` (the store, or the model's
 * adapter) is refused with the case's line under the entry's options path:
 * `$.store[1].batchWindowMs (store "store-sqlite"): must be >= 0 (found -1)`.
 */
export async function expectConfigLines(
  definition: StoreDefinition<never> | AdapterDefinition<never>,
  cases: readonly OptionsCase[],
): Promise<void> {
  const store = definition.kind === 'bosun-store'
  for (const [options, line] of cases) {
    const config = store ? { model, store: [definition, options] } : { model: { adapter: definition, options } }
    const error = await validateConfig({ config: config as never, file: '/project/bosun.config.ts', dir: '/project' }, { env: {} }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'CONFIG_INVALID'), line).toBe(true)
    const [path, problem] = line.split(/: (.*)/s) as [string, string]
    const under = store ? '$.store[1]' : '$.model.options'
    expect((error as Error).message).toContain(`  - ${under}${path.slice(1)} (${store ? 'store' : 'adapter'} "${definition.name}"): ${problem}`)
  }
}

/** Checks that `create` (the package's function) throws `INVALID_ARGUMENT` with each case's line alone under `Invalid options for <what>:`. */
export function expectCodeLines(create: (options: never) => unknown, what: string, cases: readonly OptionsCase[]): void {
  for (const [options, line] of cases) {
    expect(() => create(options as never), line).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: `Invalid options for ${what}:\n  - ${line}` }))
  }
}
