import { readdirSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildFixturePackages, fixture, normalize } from '../testing/config-fixtures.js'
import { loadConfig } from './load.js'

beforeAll(buildFixturePackages, 120_000)

const found = async (cwd: string, file?: string) => {
  const loaded = await loadConfig({ cwd: fixture(cwd), ...(file === undefined ? {} : { file }) })
  return { file: loaded.file && normalize(loaded.file), dir: normalize(loaded.dir), system: loaded.config.system }
}

describe('loadConfig — formats', () => {
  it.each([
    ['ts', 'bosun.config.ts', 'You are a careful assistant.'],
    ['mts', 'bosun.config.mts', 'mts'],
    ['cts', 'bosun.config.cts', 'cts'],
    ['js', 'bosun.config.js', 'js'],
    ['mjs', 'bosun.config.mjs', 'mjs'],
    ['json', 'bosun.config.json', 'json'],
    ['yaml', 'bosun.config.yaml', 'yaml'],
    ['yml', 'bosun.config.yml', 'yml'],
    ['rc', '.bosunrc', 'rc'],
    ['rc-json', '.bosunrc.json', 'rc-json'],
    ['rc-yaml', '.bosunrc.yaml', 'rc-yaml'],
    ['package-json', 'package.json', 'package.json'],
  ])('finds and loads %s (%s)', async (name, file, system) => {
    expect(await found(`good/${name}`)).toEqual({ file: `<fixtures>/good/${name}/${file}`, dir: `<fixtures>/good/${name}`, system })
  })

  it('loads a TS config in memory: no temporary file appears next to it', async () => {
    const before = readdirSync(fixture('good/ts'))
    await loadConfig({ cwd: fixture('good/ts') })
    await loadConfig({ cwd: fixture('good/mts') })
    expect(readdirSync(fixture('good/ts'))).toEqual(before)
    expect(readdirSync(fixture('good/mts'))).toEqual(['bosun.config.mts'])
  })

  it('a TS config may hold plugin and tool objects', async () => {
    const loaded = await loadConfig({ cwd: fixture('good/inline') })
    expect(loaded.config.plugins).toMatchObject([[{ kind: 'bosun-plugin', name: 'shout' }, { suffix: '!!' }]])
    expect(loaded.config.tools).toMatchObject([[{ name: 'repeat' }]])
  })
})

describe('loadConfig — where it looks', () => {
  it('searches upwards from a nested folder', async () => {
    expect(await found('good/nested/src/deep')).toEqual({
      file: '<fixtures>/good/nested/bosun.config.yaml',
      dir: '<fixtures>/good/nested',
      system: 'found from below',
    })
  })

  it('stops at the project root (the nearest package.json): a config above it is not used', async () => {
    expect(await found('good/stop-at-root/project/src')).toEqual({ file: undefined, dir: '<fixtures>/good/stop-at-root/project/src', system: undefined })
  })

  it('with no config found, returns the default config and no file', async () => {
    const loaded = await loadConfig({ cwd: fixture('good/stop-at-root/project') })
    expect(loaded).toEqual({ config: {}, file: undefined, dir: fixture('good/stop-at-root/project') })
  })

  it('takes package.json#bosun first, then .bosunrc*, then bosun.config.*; a package.json without "bosun" is passed over', async () => {
    expect(await found('good/search-order')).toMatchObject({ file: '<fixtures>/good/search-order/.bosunrc.json', system: 'rc-json wins' })
  })

  it('the file option loads that file, relative to cwd, instead of searching', async () => {
    expect(await found('good/file-option', 'configs/staging.yaml')).toEqual({
      file: '<fixtures>/good/file-option/configs/staging.yaml',
      dir: '<fixtures>/good/file-option/configs',
      system: 'staging',
    })
    expect(await found('good/file-option')).toMatchObject({ system: 'the searched config, not the one asked for' })
  })

  it('validate: false loads the file without resolving what it names', async () => {
    const loaded = await loadConfig({ cwd: fixture('bad/unknown-plugin'), validate: false })
    expect(loaded.config).toEqual({ plugins: ['nope'] })
  })
})
