// A config that is a promise is refused (walkthrough of docs/config.md): the root schema passed a
// promise as an empty config — it has no keys of its own — so `export default (async () => ({…}))()`
// ran on the defaults and `bosun config check` said "✓ the config is valid" with none of it applied.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgentFromConfig } from './create.js'
import { loadConfig } from './load.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function project(configFile: string, source: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-promise-config-'))
  dirs.push(dir)
  await writeFile(join(dir, 'package.json'), '{ "name": "p", "private": true }\n')
  await writeFile(join(dir, configFile), source)
  return dir
}

async function refusal(load: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await load.then(() => undefined, (caught: unknown) => caught as { code: string; message: string })
  expect(error, 'the config was refused').toBeDefined()
  return error!
}

const ADVICE = 'must be a config object, not a promise: it is not awaited, so what it resolves to would be ignored. ' +
  'Await it first (in a config file: export default defineConfig(await …), a top-level await).'

describe('a config that is a promise', () => {
  it.each([
    ['bosun.config.mjs', 'export default Promise.resolve({ system: "from a promise" })\n'],
    ['bosun.config.ts', 'export default (async () => ({ system: "from an async function" }))()\n'],
  ])('%s default-exporting a promise is CONFIG_INVALID at $, saying to await it', async (file, source) => {
    const dir = await project(file, source)
    const error = await refusal(loadConfig({ cwd: dir }))
    expect(error.code).toBe('CONFIG_INVALID')
    expect(error.message).toBe(`Invalid config ${join(dir, file)}:\n  - $: ${ADVICE}`)
  })

  it('given in code, a promise of a config is refused the same way', async () => {
    const dir = await project('unused.txt', '')
    const error = await refusal(createAgentFromConfig(Promise.resolve({ system: 'x' }) as never, { cwd: dir }))
    expect(error.code).toBe('CONFIG_INVALID')
    expect(error.message).toContain(`  - $: ${ADVICE}`)
  })

  it('the top-level await it advises loads the resolved config', async () => {
    const dir = await project('bosun.config.mjs', 'export default await Promise.resolve({ system: "awaited" })\n')
    expect((await loadConfig({ cwd: dir })).config.system).toBe('awaited')
  })
})
