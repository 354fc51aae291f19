// A config that imports from a Bosun package a name it does not export (review V1):
// `import { defineConfig } from '@bosun/core'` failed with `(0 , _core.defineConfig) is not a
// function` and no hint that defineConfig lives in `@bosun/core/config`.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { bosunImports, localImports } from './export-hint.js'
import { loadConfig } from './load.js'

const CORE = resolve(fileURLToPath(import.meta.url), '../../..')
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

/** A project with @bosun/core installed (a link to this package) and the given files. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-missing-export-'))
  dirs.push(dir)
  await writeFile(join(dir, 'package.json'), '{ "name": "p", "private": true }\n')
  await mkdir(join(dir, 'node_modules/@bosun'), { recursive: true })
  await symlink(CORE, join(dir, 'node_modules/@bosun/core'), 'dir')
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text)
  return dir
}

async function problem(dir: string): Promise<string> {
  const error = await loadConfig({ cwd: dir }).then(() => undefined, (caught: unknown) => caught as { code: string; details: { problems: { message: string }[] } })
  expect(error?.code).toBe('CONFIG_INVALID')
  return error!.details.problems.map((each) => each.message).join('\n')
}

describe('a config that imports a name its Bosun package does not export', () => {
  it.each([
    ['bosun.config.ts', "import { defineConfig } from '@bosun/core'\nexport default defineConfig({ model: { adapter: 'scripted' } })\n"],
    ['bosun.config.mjs', "import { defineConfig } from '@bosun/core'\nexport default defineConfig({ model: { adapter: 'scripted' } })\n"],
  ])('%s: says which entry point has it', async (file, text) => {
    const message = await problem(await project({ [file]: text }))
    expect(message).toContain("@bosun/core does not export defineConfig: it is in @bosun/core/config (import { defineConfig } from '@bosun/core/config').")
  }, 60_000)

  it('a name no entry point has is said to be nowhere in the package', async () => {
    const text = "import { defineConfig as d, defineKonfig } from '@bosun/core/config'\nexport default defineKonfig({})\n"
    const message = await problem(await project({ 'bosun.config.ts': text }))
    expect(message).toContain('@bosun/core/config does not export defineKonfig, nor does any other entry point of @bosun/core.')
    expect(message).not.toContain('does not export defineConfig')
  }, 60_000)
})

describe('the same wrong import in a module of the project (review Y3: no hint at all)', () => {
  const guard = "import { definePlugin } from '@bosun/core/config'\nexport default definePlugin({ name: 'guard', setup() {} })\n"
  const hint = "in ./lib/guard.mjs, @bosun/core/config does not export definePlugin: it is in @bosun/core (import { definePlugin } from '@bosun/core')."

  it('a module the config file imports is named, with where the name is', async () => {
    const dir = await project({
      'bosun.config.mjs': "import guard from './lib/guard.mjs'\nexport default { model: { adapter: 'scripted' }, plugins: [guard] }\n",
    })
    await mkdir(join(dir, 'lib'))
    await writeFile(join(dir, 'lib/guard.mjs'), guard)
    expect(await problem(dir)).toContain(hint)
  }, 60_000)

  it('a plugin entry given by path gets the same hint', async () => {
    const dir = await project({ 'bosun.config.json': JSON.stringify({ model: { adapter: 'scripted' }, plugins: ['./lib/guard.mjs'] }) })
    await mkdir(join(dir, 'lib'))
    await writeFile(join(dir, 'lib/guard.mjs'), guard)
    const message = await problem(dir)
    expect(message).toContain('./lib/guard.mjs failed to load')
    expect(message).toContain("@bosun/core/config does not export definePlugin: it is in @bosun/core (import { definePlugin } from '@bosun/core').")
  }, 60_000)

  it('a path entry naming a folder says so, and what to name instead (it said there was no file)', async () => {
    const dir = await project({ 'bosun.config.json': JSON.stringify({ model: { adapter: 'scripted' }, plugins: ['./my-guard'] }) })
    await mkdir(join(dir, 'my-guard'))
    const message = await problem(dir)
    expect(message).toContain(`is a folder (${join(dir, 'my-guard')}): a path entry names the module's file — its built entry, e.g. ./my-guard/dist/index.js — or install the package and give its name.`)
  }, 60_000)
})

describe('localImports', () => {
  it('reads relative imports, re-exports, side-effect imports and requires; not packages', () => {
    const text = [
      "import a from './a.js'",
      "import { b } from '../b'",
      "export { c } from './c.mjs'",
      "import './side.ts'",
      "const d = require('./d.cjs')",
      "const e = await import('./e.mts')",
      "import { f } from '@bosun/core'",
    ].join('\n')
    expect(localImports(text).sort()).toEqual(['../b', './a.js', './c.mjs', './d.cjs', './e.mts', './side.ts'])
  })
})

describe('bosunImports', () => {
  it('reads named imports and requires of @bosun packages, not type-only ones nor other packages', () => {
    const text = [
      "import type { BosunConfig } from '@bosun/core'",
      "import x, { a, b as c, type T } from '@bosun/core/config'",
      "import { y } from 'other'",
      "const { d: e, f } = require('@bosun/plugin-retry')",
    ].join('\n')
    expect(bosunImports(text)).toEqual([
      { specifier: '@bosun/core/config', names: ['a', 'b'] },
      { specifier: '@bosun/plugin-retry', names: ['d', 'f'] },
    ])
  })
})
