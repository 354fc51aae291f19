import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_VERSION, declaredCoreRange } from './core-range.js'
import { loadConfig } from './load.js'

let dir: string | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** The error `loadConfig` fails with (a config that loads is a failed expectation). */
async function loadFailure(cwd: string): Promise<Error & { code?: string }> {
  try {
    await loadConfig({ cwd })
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('the config loaded, but it should have been refused')
}

/** A project whose node_modules holds `bosun-plugin-<name>` with this manifest (a plugin made without the core's help). */
async function projectWith(plugins: Record<string, Record<string, unknown>>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'bosun-core-range-'))
  for (const [name, manifest] of Object.entries(plugins)) {
    const folder = join(dir, 'node_modules', `bosun-plugin-${name}`)
    await mkdir(folder, { recursive: true })
    await writeFile(join(folder, 'package.json'), JSON.stringify({ name: `bosun-plugin-${name}`, version: '2.0.0', type: 'module', main: 'index.js', ...manifest }))
    await writeFile(join(folder, 'index.js'), `export default Object.freeze({ kind: 'bosun-plugin', name: '${name}', setup() {} })\n`)
  }
  await writeFile(join(dir, 'bosun.config.json'), JSON.stringify({ plugins: Object.keys(plugins) }))
  return dir
}

describe('a plugin package for another core', () => {
  it('is refused when the config is checked, with its range and the running version named', async () => {
    const cwd = await projectWith({ future: { bosun: { kind: 'plugin', core: '^9.0.0' } } })
    const error = await loadFailure(cwd)
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' })
    expect(error.message).toContain(`bosun-plugin-future 2.0.0 supports @bosun/core ^9.0.0, but the running @bosun/core is ${CORE_VERSION}.`)
  })

  it('the peer range counts when bosun.core is absent; a range that includes the running core loads', async () => {
    const cwd = await projectWith({ peer: { peerDependencies: { '@bosun/core': '>=99' } }, fine: { bosun: { core: `>=${CORE_VERSION}` } } })
    const error = await loadFailure(cwd)
    expect(error.message).toContain('bosun-plugin-peer 2.0.0 supports @bosun/core >=99')
    expect(error.message).not.toContain('bosun-plugin-fine')
  })

  it('declaredCoreRange: bosun.core, else the peer range; never a workspace: range', () => {
    expect(declaredCoreRange({ bosun: { core: '^1.0.0' }, peerDependencies: { '@bosun/core': '^2.0.0' } })).toBe('^1.0.0')
    expect(declaredCoreRange({ peerDependencies: { '@bosun/core': '^2.0.0' } })).toBe('^2.0.0')
    expect(declaredCoreRange({ peerDependencies: { '@bosun/core': 'workspace:^' } })).toBeUndefined()
    expect(declaredCoreRange({})).toBeUndefined()
  })
})
