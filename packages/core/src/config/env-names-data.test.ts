// What an options schema marks `x-bosun-data` is the user's data (a scripted tool call's `args`),
// not options: a key there ending in `Env` (`targetEnv: "eu-west-1"`) names nothing and is not
// refused — from code as from a config file. Outside it, a pasted key is still refused.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scripted } from '@bosun/adapter-scripted'
import { afterEach, describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { assertOptions, type JsonSchema } from '../schema.js'
import { ENV_NAME_REFUSED } from './env-names.js'
import { loadConfig } from './load.js'

const PASTED = 'ghp_PASTEDabcdefghijklmnopqrstuvwxyz0123'

/** Data reached through a property, a `$ref`'d array item and an `anyOf` branch; `tokenEnv` and `keyEnv` are options. */
const schema: JsonSchema = {
  type: 'object',
  properties: {
    payload: { type: 'object', 'x-bosun-data': true },
    tokenEnv: { type: 'string' },
    items: { type: 'array', items: { $ref: '#/definitions/item' } },
  },
  definitions: {
    item: { type: 'object', properties: { keyEnv: { type: 'string' }, body: { anyOf: [{ type: 'object', 'x-bosun-data': true }] } } },
  },
}

const DEPLOY = { responses: [{ toolCalls: [{ name: 'deploy', args: { targetEnv: 'eu-west-1', nested: [{ regionEnv: 'us east' }] } }] }] }

let dir: string | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

/** The error `loadConfig` fails with, or undefined when the config loads. */
async function loadFailure(cwd: string, env: Record<string, string>): Promise<BosunError | undefined> {
  try {
    await loadConfig({ cwd, env })
    return undefined
  } catch (error) {
    return error as BosunError
  }
}

describe('x-bosun-data: the user\'s data is not checked as options', () => {
  it('from code: a scripted tool call\'s args may hold any key', () => {
    expect(() => scripted(DEPLOY)).not.toThrow()
    expect(() => scripted({ responses: [] }).push({ toolCalls: [{ name: 'deploy', args: { targetEnv: 'eu-west-1' } }] })).not.toThrow()
  })

  it('from code: what the schema marks is skipped, wherever it is reached; every …Env option outside it is still refused', () => {
    const options = {
      payload: { targetEnv: 'eu-west-1', deep: { keyEnv: PASTED } },
      tokenEnv: PASTED,
      items: [{ keyEnv: 'not a name', body: { regionEnv: 'eu-west-1' } }],
    }
    const error = (() => {
      try {
        assertOptions(schema, options, 'deployer()')
      } catch (caught) {
        return caught as BosunError
      }
      throw new Error('did not throw')
    })()
    expect(BosunError.is(error, 'INVALID_ARGUMENT')).toBe(true)
    expect(error.message.split('\n').slice(1)).toEqual([`  - $.tokenEnv: ${ENV_NAME_REFUSED}`, `  - $.items[0].keyEnv: ${ENV_NAME_REFUSED}`])
    expect(error.message).not.toContain(PASTED)
  })

  it('from a config file: a scripted tool call\'s args and a plugin\'s data pass; its …Env option is refused, not shown', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bosun-data-'))
    await writeFile(
      join(dir, 'deployer.mjs'),
      `export default Object.freeze({ kind: 'bosun-plugin', name: 'deployer', schema: ${JSON.stringify(schema)}, setup() {} })\n`,
    )
    const config = (tokenEnv: string) => ({
      model: { adapter: 'scripted', options: DEPLOY },
      plugins: [['./deployer.mjs', { payload: { targetEnv: 'eu-west-1' }, tokenEnv, items: [{ keyEnv: 'SET_KEY', body: { regionEnv: 'eu-west-1' } }] }]],
    })
    await writeFile(join(dir, 'bosun.config.json'), JSON.stringify(config('SET_TOKEN')))
    const env = { SET_TOKEN: 'x', SET_KEY: 'y' }
    await expect(loadConfig({ cwd: dir, env })).resolves.toBeDefined()

    await writeFile(join(dir, 'bosun.config.json'), JSON.stringify(config(PASTED)))
    const error = await loadFailure(dir, env)
    expect(error?.message.split('\n').slice(1)).toEqual([`  - $.plugins[0][1].tokenEnv (plugin "./deployer.mjs"): ${ENV_NAME_REFUSED}`])
    expect(error?.message).not.toContain(PASTED)
  })
})
