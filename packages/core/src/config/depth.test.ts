import { beforeAll, describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { definePlugin } from '../plugin.js'
import { buildFixturePackages, configMessage, fixture } from '../testing/config-fixtures.js'
import { createAgentFromConfig } from './create.js'
import { depthProblem, MAX_CONFIG_DEPTH } from './depth.js'
import { loadConfig } from './load.js'

beforeAll(buildFixturePackages, 120_000)

/** `levels` levels of objects: the outermost is level 1. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  for (let level = 1; level < levels; level++) value = { a: value }
  return value
}

describe('a config nested too deep', () => {
  it('JSON, 2,000 levels of arrays: refused with the path where the nesting starts, not a stack overflow', async () => {
    expect(await configMessage(loadConfig({ cwd: fixture('bad/too-deep-json') }))).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/too-deep-json/bosun.config.json:
        - $.model.options.record[0][0][0] (adapter "scripted"): nests deeper than 100 levels of objects and arrays (the limit of every config format), below this path. Flatten it; data that deep belongs in a file the plugin or tool reads, not in the config."
    `)
  })

  it('a TS config, plugin options 2,000 levels deep: refused the same way, naming the plugin', async () => {
    expect(await configMessage(loadConfig({ cwd: fixture('bad/too-deep-ts') }))).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/too-deep-ts/bosun.config.ts:
        - $.plugins[0][1].rules.any[0] (plugin "./deep.ts"): nests deeper than 100 levels of objects and arrays (the limit of every config format), below this path. Flatten it; data that deep belongs in a file the plugin or tool reads, not in the config."
    `)
  })

  it('YAML: the parser refuses past the same 100 levels', async () => {
    expect(await configMessage(loadConfig({ cwd: fixture('bad/too-deep-yaml') }))).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/too-deep-yaml/bosun.config.yaml:
        - $: the file is not valid YAML: <fixtures>/bad/too-deep-yaml/bosun.config.yaml:101:199: nesting exceeded maxDepth (100). Flatten it; data that deep belongs in a file the plugin or tool reads, not in the config."
    `)
  })

  it('is refused even when the file is only loaded (validate: false), since callers walk what they get', async () => {
    await expect(loadConfig({ cwd: fixture('bad/too-deep-json'), validate: false })).rejects.toMatchObject({ code: 'CONFIG_INVALID' })
  })

  it('a config given in code with plugin options too deep: CONFIG_INVALID, not a crash', async () => {
    const plugin = definePlugin({ name: 'deep', schema: { type: 'object' }, setup() {} })
    let options: unknown = {}
    for (let level = 0; level < 5000; level++) options = [options]
    const error = await createAgentFromConfig({ plugins: [[plugin, { options }]] }).catch((caught: unknown) => caught)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as BosunError).details).toMatchObject({ problems: [{ path: '$.plugins[0][1].options[0][0]', plugin: 'deep', kind: 'plugin' }] })
  })
})

describe('depthProblem', () => {
  it(`accepts ${MAX_CONFIG_DEPTH} levels and refuses ${MAX_CONFIG_DEPTH + 1}`, () => {
    expect(depthProblem(nested(MAX_CONFIG_DEPTH), '$')).toBeUndefined()
    expect(depthProblem(nested(MAX_CONFIG_DEPTH + 1), '$')).toMatchObject({ path: '$.a.a.a.a.a.a' })
  })

  it('inside package.json, the path starts at $.bosun', () => {
    expect(depthProblem(nested(MAX_CONFIG_DEPTH + 1), '$.bosun')?.path).toBe('$.bosun.a.a.a.a.a.a')
  })

  it('walks what a config spells out, not the objects a TS config hands over (an adapter, a client), and ends on a cycle', () => {
    class Client {
      inner = nested(MAX_CONFIG_DEPTH + 10)
    }
    const cyclic: Record<string, unknown> = {}
    cyclic['self'] = cyclic
    expect(depthProblem({ model: { adapter: new Client() }, plugins: [[{ kind: 'bosun-plugin' }, cyclic]] }, '$')).toBeUndefined()
  })
})
