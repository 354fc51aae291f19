import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from './load.js'

// cosmiconfig's search skips a config file it cannot read and goes on: the defaults (or a lesser
// file) ran instead of the user's config, without a word. (An unreadable file — EACCES — takes
// the same path as a folder or a link to nothing; tests run as root, which reads any file.)
const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })))

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bosun-unreadable-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'package.json'), '{ "name": "app" }')
  return dir
}

const failure = async (options: Parameters<typeof loadConfig>[0]) =>
  loadConfig(options).then(() => 'loaded', (error: Error) => error.message.replace(/\S*bosun-unreadable-[^/]+/g, '<dir>'))

describe('loadConfig — a config file it cannot read', () => {
  it('is reported, not skipped: a link to nothing', async () => {
    const dir = project()
    symlinkSync(join(dir, 'gone.yaml'), join(dir, 'bosun.config.yaml'))
    expect(await failure({ cwd: dir })).toBe(
      'Invalid config <dir>/bosun.config.yaml:\n  - $: the file is a link to a file that does not exist. Fix the link, or remove it.')
  })

  it('is reported, not skipped for a lesser file beside it or for one in a parent folder', async () => {
    const dir = project()
    mkdirSync(join(dir, 'bosun.config.ts'))
    writeFileSync(join(dir, 'bosun.config.json'), '{ "system": "the lesser file" }')
    mkdirSync(join(dir, 'src', '.bosunrc.json'), { recursive: true })
    expect(await failure({ cwd: join(dir, 'src') })).toBe(
      'Invalid config <dir>/src/.bosunrc.json:\n  - $: the file cannot be read: it is a folder, not a file. Rename or remove the folder.')
    rmSync(join(dir, 'src', '.bosunrc.json'), { recursive: true })
    expect(await failure({ cwd: join(dir, 'src') })).toBe(
      'Invalid config <dir>/bosun.config.ts:\n  - $: the file cannot be read: it is a folder, not a file. Rename or remove the folder.')
  })

  it('a readable config is found as before', async () => {
    const dir = project()
    writeFileSync(join(dir, 'bosun.config.yaml'), 'system: found')
    mkdirSync(join(dir, 'src'))
    expect((await loadConfig({ cwd: join(dir, 'src') })).config).toEqual({ system: 'found' })
    expect(await loadConfig({ cwd: project() })).toMatchObject({ config: {}, file: undefined })
  })
})

describe('loadConfig — the file option', () => {
  it('an extension no format has: which ones do', async () => {
    const dir = project()
    writeFileSync(join(dir, 'bosun.config.txt'), '{}')
    expect(await failure({ cwd: dir, file: 'bosun.config.txt' })).toBe(
      'Invalid config <dir>/bosun.config.txt:\n  - $: the file\'s extension ".txt" is not a config format: name a .json, .yaml, .yml, .ts, .mts, .cts, .js, .mjs or .cjs file (a file without an extension is read as YAML).')
  })

  it('a CommonJS config named by its .cjs name loads (it did through cosmiconfig\'s own loaders)', async () => {
    const dir = project()
    writeFileSync(join(dir, 'bosun.config.cjs'), 'module.exports = { system: "from cjs" }')
    expect((await loadConfig({ cwd: dir, file: 'bosun.config.cjs' })).config).toEqual({ system: 'from cjs' })
  })

  it('a folder', async () => {
    const dir = project()
    mkdirSync(join(dir, 'configs'))
    expect(await failure({ cwd: dir, file: 'configs' })).toBe(
      'Invalid config <dir>/configs:\n  - $: the file cannot be read: it is a folder, not a file. Rename or remove the folder.')
  })
})
