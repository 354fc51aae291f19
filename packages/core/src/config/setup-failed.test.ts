// A plugin whose setup throws, in an agent built from a config file (review V1):
// PLUGIN_SETUP_FAILED named the plugin only, neither the file nor the entry's path in it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { memoryStore } from '../store/memory.js'
import { createAgentFromConfig } from './create.js'
import { loadConfig } from './load.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

const REFUSING = "export default { kind: 'bosun-plugin', name: 'refusing', setup() { throw new Error('the index service is down') } }\n"
const CHECKING = "export default { kind: 'bosun-plugin', name: 'checking', setup(ctx) { ctx.afterSetup(() => { throw new Error('no tool named clock.') }) } }\n"

async function failure(config: unknown): Promise<BosunError> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-setup-failed-'))
  dirs.push(dir)
  await writeFile(join(dir, 'refusing.mjs'), REFUSING)
  await writeFile(join(dir, 'checking.mjs'), CHECKING)
  await writeFile(join(dir, 'bosun.config.json'), JSON.stringify(config))
  const loaded = await loadConfig({ cwd: dir })
  return createAgentFromConfig(loaded, { store: memoryStore() }).then(
    () => expect.unreachable('the agent was built'),
    (error: unknown) => error as BosunError,
  )
}

describe('a plugin whose setup throws, from a config file', () => {
  it('names the file and the entry at its path, as a config problem does; same code, same cause', async () => {
    const error = await failure({ plugins: ['./checking.mjs', ['./refusing.mjs', {}]] })
    expect(error.code).toBe('PLUGIN_SETUP_FAILED')
    expect(error.message).toMatch(/^Plugin "refusing" failed in setup: the index service is down\. In \/.*\/bosun\.config\.json: \$\.plugins\[1\] \(plugin "\.\/refusing\.mjs"\)\.$/)
    expect(error.details).toMatchObject({ plugin: 'refusing', path: '$.plugins[1]', file: expect.stringMatching(/bosun\.config\.json$/) })
    expect((error.cause as Error).message).toBe('the index service is down')
  })

  it('an afterSetup check that throws too', async () => {
    const error = await failure({ plugins: ['./checking.mjs'] })
    expect(error.message).toMatch(/^Plugin "checking" failed its afterSetup check: no tool named clock\. In \/.*\/bosun\.config\.json: \$\.plugins\[0\] \(plugin "\.\/checking\.mjs"\)\.$/)
  })
})
