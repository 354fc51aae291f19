// A module of the config that imports a package that is not installed says to install it
// (walkthrough of docs/plugins.md with the bosun CLI in an empty folder): a local ./guard.mjs that
// imports '@bosun/core' failed with only "Cannot find module '@bosun/core'", though the CLI ships
// its own core — which serves the names a config gives, not the imports of its modules.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from './load.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-missing-import-'))
  dirs.push(dir)
  await writeFile(join(dir, 'package.json'), '{ "name": "p", "private": true }\n')
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true })
    await writeFile(join(dir, name), text)
  }
  return dir
}

async function problems(dir: string): Promise<string[]> {
  const error = await loadConfig({ cwd: dir }).then(() => undefined, (caught: unknown) => caught as { code: string; details: { problems: { message: string }[] } })
  expect(error?.code).toBe('CONFIG_INVALID')
  return error!.details.problems.map((problem) => problem.message)
}

const CONFIG = JSON.stringify({ plugins: ['./guard.mjs'], tools: ['./tools/clock.ts'] })

describe('a config module that imports a package that is not installed', () => {
  it('names the package and says to install it (ESM and TypeScript, scoped and unscoped, a subpath)', async () => {
    const dir = await project({
      'bosun.config.json': CONFIG,
      'guard.mjs': "import { definePlugin } from '@bosun-missing/core'\nexport default definePlugin({ name: 'guard', setup() {} })\n",
      'tools/clock.ts': "import { now } from 'bosun-missing-clock/sub/path.js'\nexport default { name: 'clock', description: 'now', parameters: { type: 'object' }, execute: () => now() }\n",
    })
    const [plugin, tool] = await problems(dir)
    expect(plugin).toMatch(/^\.\/guard\.mjs failed to load: .*'@bosun-missing\/core'.*\. \.\/guard\.mjs imports @bosun-missing\/core, which is not installed where it can be found: install it in the project \(npm install @bosun-missing\/core\)\.$/)
    expect(tool).toMatch(/^\.\/tools\/clock\.ts failed to load: .*'bosun-missing-clock\/sub\/path\.js'.*\. \.\/tools\/clock\.ts imports bosun-missing-clock, which is not installed where it can be found: install it in the project \(npm install bosun-missing-clock\)\.$/)
  })

  it('a missing relative file gets no install advice', async () => {
    const dir = await project({
      'bosun.config.json': JSON.stringify({ plugins: ['./guard.mjs'] }),
      'guard.mjs': "export { default } from './missing-helper.mjs'\n",
    })
    const [plugin] = await problems(dir)
    expect(plugin).toMatch(/^\.\/guard\.mjs failed to load: /)
    expect(plugin).not.toContain('npm install')
  })
})
