import { describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { definePlugin } from '../plugin.js'
import { createAgentFromConfig } from './create.js'

// A value JSON cannot hold in a config (a YAML .nan or .inf, a bigint from a TS config) where the
// schema names no type, or the plugin has no schema, is the config's problem at its path in the
// file — as the schema's are — not createAgent's PLUGIN_OPTIONS_INVALID for "plugins[0]" at
// "$.limit", which names neither the file nor the entry's options.

const schemaless = definePlugin({ name: 'schemaless', setup: () => {} })
const freeform = definePlugin({
  name: 'freeform',
  schema: { type: 'object', properties: { level: { type: 'integer' }, payload: { 'x-bosun-data': true } } },
  setup: () => {},
})

const notJson = 'must be JSON: a plain object, an array, a string, a finite number, a boolean or null'

describe('values JSON cannot hold in a config', () => {
  it('are CONFIG_INVALID at their paths in the config, naming the entry, each once', async () => {
    const config = { plugins: [[schemaless, { limit: Infinity, nested: { ratio: NaN } }], [freeform, { level: NaN, payload: { id: 7n } }]] }
    const error = await createAgentFromConfig(config as never, { cwd: process.cwd() }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as BosunError).details).toMatchObject({
      problems: [
        { path: '$.plugins[0][1].limit', plugin: 'schemaless', message: expect.stringContaining(`${notJson} (found Infinity): JSON has no NaN or Infinity`) },
        { path: '$.plugins[0][1].nested.ratio', plugin: 'schemaless', message: expect.stringContaining(`${notJson} (found NaN)`) },
        { path: '$.plugins[1][1].level', plugin: 'freeform', message: 'must be an integer (found NaN)' },
        { path: '$.plugins[1][1].payload.id', plugin: 'freeform', message: expect.stringContaining(`${notJson} (found the bigint 7n): convert it with Number(…)`) },
      ],
    })
    expect((error as BosunError).details['problems']).toHaveLength(4)
  })
})
