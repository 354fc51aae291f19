import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { main } from './cli.js'

let cwd: string
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'create-bosun-plugin-'))
})
afterEach(() => rm(cwd, { recursive: true, force: true }))

async function cli(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, { cwd, stdout: (text) => out.push(text), stderr: (text) => err.push(text) })
  return { code, stdout: out.join('\n'), stderr: err.join('\n') }
}

describe('create-bosun-plugin', () => {
  it('writes the package into ./bosun-plugin-<name> and says what to do next', async () => {
    const { code, stdout, stderr } = await cli('my-guard')
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toMatchInlineSnapshot(`
      "Created the plugin package bosun-plugin-my-guard in the folder ./bosun-plugin-my-guard/:
        .changeset/config.json
        .changeset/initial.md
        .gitignore
        README.md
        package.json
        scripts/write-schema.mjs
        src/index.test.ts
        src/index.ts
        src/options.ts
        tsconfig.build.json
        tsconfig.json
        vitest.config.ts

      Next:
        cd bosun-plugin-my-guard
        npm install      # or pnpm install
        npm test         # runs the plugin in a real agent on the scripted model

      Then edit src/index.ts. A config names the plugin 'my-guard'."
    `)
    expect((await readdir(join(cwd, 'bosun-plugin-my-guard'))).sort()).toEqual(
      ['.changeset', '.gitignore', 'README.md', 'package.json', 'scripts', 'src', 'tsconfig.build.json', 'tsconfig.json', 'vitest.config.ts'],
    )
  })

  // npm publishes a scoped package's first version as restricted unless told otherwise: on the
  // npm registry, for an account without private packages, `npm publish` of @acme/bosun-plugin-x
  // failed (E402) where `npm run release` (changesets, whose config says public) succeeded.
  it('a scoped package publishes public with npm publish alone, as with npm run release', async () => {
    expect((await cli('guard', '--scope', '@acme')).code).toBe(0)
    const manifest = JSON.parse(await readFile(join(cwd, 'bosun-plugin-guard', 'package.json'), 'utf8'))
    expect(manifest.name).toBe('@acme/bosun-plugin-guard')
    expect(manifest.publishConfig).toEqual({ access: 'public' })
    const changesets = JSON.parse(await readFile(join(cwd, 'bosun-plugin-guard', '.changeset', 'config.json'), 'utf8'))
    expect(changesets.access).toBe('public')
  })

  it('fills every placeholder: no {{…}} is left in any file', async () => {
    await cli('@acme/my-guard', '--dir', 'out')
    for (const file of ['package.json', 'README.md', 'src/index.ts', 'src/options.ts', 'src/index.test.ts', '.changeset/initial.md']) {
      const text = await readFile(join(cwd, 'out', file), 'utf8')
      expect(text, file).not.toMatch(/\{\{\s*[A-Za-z]+\s*\}\}/)
    }
    const manifest = JSON.parse(await readFile(join(cwd, 'out/package.json'), 'utf8'))
    expect(manifest.name).toBe('@acme/bosun-plugin-my-guard')
    expect(await readFile(join(cwd, 'out/README.md'), 'utf8')).toContain("[['@acme/my-guard', { words: ['password', 'api key'] }]]")
    expect(await readFile(join(cwd, 'out/.changeset/initial.md'), 'utf8')).toMatch(/^---\n"@acme\/bosun-plugin-my-guard": minor\n---\n/)
  })

  it('prints the usage for --help and exits 0', async () => {
    const { code, stdout } = await cli('--help')
    expect(code).toBe(0)
    expect(stdout).toContain('Usage: create-bosun-plugin <name> [--dir <path>] [--scope <@scope>]')
  })

  it('fails with INVALID_ARGUMENTS and the usage on a missing name, two names or an unknown option', async () => {
    for (const argv of [[], ['a', 'b'], ['a', '--force'], ['a', '--dir']]) {
      const { code, stderr } = await cli(...argv)
      expect(code, argv.join(' ')).toBe(1)
      expect(stderr, argv.join(' ')).toMatch(/^create-bosun-plugin: INVALID_ARGUMENTS: .+\n\nUsage:/)
    }
  })

  it('fails with INVALID_PLUGIN_NAME on a bad name and writes nothing', async () => {
    const { code, stderr } = await cli('My_Guard')
    expect(code).toBe(1)
    expect(stderr).toMatch(/^create-bosun-plugin: INVALID_PLUGIN_NAME: "My_Guard" is not a valid plugin name/)
    expect(await readdir(cwd)).toEqual([])
  })

  it('refuses a folder that is not empty, and leaves it untouched', async () => {
    await mkdir(join(cwd, 'taken'))
    await writeFile(join(cwd, 'taken/notes.txt'), 'mine')
    const { code, stderr } = await cli('my-guard', '--dir', 'taken')
    expect(code).toBe(1)
    expect(stderr).toContain('TARGET_NOT_EMPTY')
    expect(await readdir(join(cwd, 'taken'))).toEqual(['notes.txt'])
  })

  it('shows a folder outside the current one by its absolute path', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'create-bosun-plugin-elsewhere-'))
    try {
      const { stdout } = await cli('my-guard', '--dir', join(elsewhere, 'pkg'))
      expect(stdout).toContain(`Created the plugin package bosun-plugin-my-guard in the folder ${join(elsewhere, 'pkg')}/:`)
      expect(stdout).toContain(`  cd ${join(elsewhere, 'pkg')}`)
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })

  // It said "Created bosun-plugin-my-guard in bosun-plugin-my-guard": the package's name twice, the
  // folder not told from it. It names the package, then the folder as a path.
  it('says the current folder when it writes there, by its path', async () => {
    const { code, stdout } = await cli('my-guard', '--dir', '.')
    expect(code).toBe(0)
    expect(stdout.split('\n')[0]).toBe(`Created the plugin package bosun-plugin-my-guard in the current folder (${cwd}/):`)
    expect(stdout).not.toContain('  cd ')
  })

  it('writes into an existing empty folder', async () => {
    await mkdir(join(cwd, 'empty'))
    expect((await cli('my-guard', '-d', 'empty')).code).toBe(0)
    expect(await readdir(join(cwd, 'empty'))).toContain('package.json')
  })
})
