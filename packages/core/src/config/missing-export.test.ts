// A config that imports from a Bosun package a name it does not export (review V1):
// `import { defineConfig } from '@bosun/core'` failed with `(0 , _core.defineConfig) is not a
// function` and no hint that defineConfig lives in `@bosun/core/config`.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { bosunImports } from './export-hint.js'
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
