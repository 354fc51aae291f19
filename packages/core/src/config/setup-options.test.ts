import { describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { definePlugin } from '../plugin.js'
import { optionsError } from '../schema.js'
import { createAgentFromConfig } from './create.js'

// A plugin may find its options invalid in setup (a pattern that does not compile), where its
// schema could not: the config's error says where in the config, as the schema's problems do.

/** Refuses every rule whose pattern does not compile, with paths from its options' root. */
const guard = definePlugin<{ rules?: { pattern: string }[] }>({
  name: 'guard',
  setup: (_context, options) => {
    const problems = (options?.rules ?? []).flatMap((rule, index) => {
      try {
        new RegExp(rule.pattern)
        return []
      } catch {
        return [{ keys: ['rules', index, 'pattern'], message: 'must be a valid regular expression' }]
      }
    })
    if (problems.length > 0 || options?.rules === undefined) throw optionsError('plugin "guard"', problems.length > 0 ? problems : [{ keys: [], message: 'needs rules' }])
  },
})

describe('a plugin setup that refuses its options', () => {
  it('is CONFIG_INVALID at the options\' path in the config, naming the entry, every problem listed', async () => {
    const config = { plugins: [guard, [guard, { rules: [{ pattern: 'ok' }, { pattern: '(' }, { pattern: '[' }] }]] }
    // The first entry (no options) is refused at its own path; it fails first.
    const bare = await createAgentFromConfig(config as never, { cwd: process.cwd() }).catch((e: unknown) => e)
    expect(BosunError.is(bare, 'CONFIG_INVALID')).toBe(true)
    expect((bare as Error).message).toBe(`Invalid config (no config file; names resolve from ${process.cwd()}):\n  - $.plugins[0] (plugin "guard"): needs rules`)
    const error = await createAgentFromConfig({ plugins: [config.plugins[1]!] } as never, { cwd: process.cwd() }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as BosunError).details).toMatchObject({
      problems: [
        { path: '$.plugins[0][1].rules[1].pattern', plugin: 'guard', message: 'must be a valid regular expression' },
        { path: '$.plugins[0][1].rules[2].pattern', plugin: 'guard', message: 'must be a valid regular expression' },
      ],
    })
    expect((error as Error).cause).toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID' })
  })
})
