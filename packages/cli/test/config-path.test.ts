import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, requireBuild, it, writeProject } from './helpers.js'

beforeAll(requireBuild)

// `--config` naming nothing said only `$: the file does not exist.` (no what to do), and naming a
// folder said `Rename or remove the folder.` — wrong advice for a folder typed on purpose. The
// path was typed relative to the current folder: the config files beside it, or in the folder,
// are the likely meaning, so they are named, with the --config to give instead.
describe.concurrent('--config naming no file', () => {
  it('a file that is not there: where it was looked for, and the config file beside it to give instead', async ({ dir, expect }) => {
    await writeProject(dir, undefined, { 'bosun.config.yaml': 'system: hi\n', 'package.json': '{}' })
    const result = await bosun(['--config', 'bosun.config.yml', 'run', 'hi'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(`error CONFIG_INVALID: Invalid config ${join(dir, 'bosun.config.yml')}:
  - $: the file does not exist (--config bosun.config.yml, read from the current folder, ${dir}). ${dir} holds bosun.config.yaml. Give that file (--config ./bosun.config.yaml), or leave --config out to use the config found from the current folder up to the project root.
`)
  })

  it('a file in a folder that is not there: check the path', async ({ dir, expect }) => {
    const result = await bosun(['config', 'check', '--config', 'configs/staging.json'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`- $: the file does not exist (--config configs/staging.json, read from the current folder, ${dir}). Check the path, or leave --config out`)
  })

  it('a folder: the config file in it to name instead, not "rename or remove the folder"', async ({ dir, expect }) => {
    await writeProject(dir, undefined, { 'configs/bosun.config.json': '{}', 'configs/.bosunrc.yaml': 'system: a\n' })
    await mkdir(join(dir, 'empty'))
    const [folder, empty] = await Promise.all([
      bosun(['--config', 'configs', 'sessions', 'list'], { cwd: dir }),
      bosun(['--config', 'empty', 'run', 'hi'], { cwd: dir }),
    ])
    expect(folder.code).toBe(1)
    expect(folder.stderr).toBe(`error CONFIG_INVALID: Invalid config ${join(dir, 'configs')}:
  - $: it is a folder, not a config file: it holds .bosunrc.yaml and bosun.config.json. Name the file itself (--config ./configs/.bosunrc.yaml), or leave --config out to use the config found from the current folder up to the project root.
`)
    expect(empty.stderr).toContain('- $: it is a folder, not a config file: it holds no config file (bosun.config.*, .bosunrc*). Name the config file itself, or leave --config out')
    expect(empty.stderr).not.toContain('Rename or remove')
  })
})
