import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)

// The search reads the working directory's package.json (search place 1): one it cannot read is a
// config error naming the file and what to fix — not "UNEXPECTED … a bug in bosun", and never a
// quote of the file.
describe.concurrent('a package.json in the working directory that the config search cannot read', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['not valid JSON', '{"name": "app",\n  "bosun": {bad', /package\.json:\n {2}- \$: the file is not valid JSON: \S*package\.json:2:13: Expected property name or '\}'\. Fix the JSON there/],
    ['null', 'null\n', /package\.json:\n {2}- \$: the file is null, not an object\. Give it an object \(\{\}\), or delete it\./],
    ['an array', '[]\n', /package\.json:\n {2}- \$: the file is an array, not an object\. Give it an object \(\{\}\), or delete it\./],
  ]
  it.for(cases)('%s: a config error naming the file and what to fix, not a bug of bosun', async ([, text, expected], { dir, expect }) => {
    await writeFile(join(dir, 'package.json'), text)
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.code).toBe(1)
    expect(check.stderr).toMatch(/^error CONFIG_INVALID: Invalid config \S*package\.json:/)
    expect(check.stderr).toMatch(expected)
    expect(check.stderr).not.toContain('bug in bosun')
    // The parser's snippet of the file is not quoted (it could hold a secret).
    expect(check.stderr).not.toContain('{bad')
  })

  it('a byte-order mark is read past: a package.json without a bosun key is no config', async ({ dir, expect }) => {
    await writeFile(join(dir, 'package.json'), '\uFEFF{"name": "app"}\n')
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.stderr).toBe('')
    expect(check.code).toBe(0)
    expect(check.stdout).toMatch(/^config {3}none found/)
  })

  it('a valid package.json with a bosun key still loads', async ({ dir, expect }) => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', bosun: { model: { adapter: 'scripted' } } }))
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.stderr).toBe('')
    expect(check.code).toBe(0)
    expect(check.stdout).toMatch(/^config {3}package\.json\nadapter {2}scripted/)
  })
})

// cosmiconfig() reads settings of its own ("meta config") from the working directory before any
// search: it ran a `.config/config.js` there, and let a `cosmiconfig` key in `.config/config.json`
// add search places ahead of Bosun's.
describe.concurrent('files that configure cosmiconfig, not Bosun', () => {
  const RAN = 'meta-config-ran'
  const script = (dir: string) => `require('node:fs').writeFileSync(${JSON.stringify(join(dir, RAN))}, 'x'); module.exports = {}\n`

  it('a .config/config.js in the working directory is not run, with --config naming a config elsewhere or with none', async ({ dir, expect }) => {
    await mkdir(join(dir, '.config'))
    await writeFile(join(dir, '.config', 'config.js'), script(dir))
    await writeFile(join(dir, 'package.json'), '{"name": "app"}\n')
    await mkdir(join(dir, 'elsewhere'))
    await writeFile(join(dir, 'elsewhere', 'agent.json'), '{"model": {"adapter": "scripted"}}\n')
    const named = await bosun(['config', 'check', '--config', join(dir, 'elsewhere', 'agent.json')], { cwd: dir })
    expect(named.stderr).toBe('')
    expect(named.code).toBe(0)
    const searched = await bosun(['config', 'check'], { cwd: dir })
    expect(searched.code).toBe(0)
    expect(existsSync(join(dir, RAN)), '.config/config.js was run').toBe(false)
  })

  it('a "cosmiconfig" key in .config/config.json adds no place to the search', async ({ dir, expect }) => {
    await writeFile(join(dir, 'package.json'), '{"name": "app"}\n')
    await mkdir(join(dir, '.config'))
    await writeFile(join(dir, '.config', 'config.json'), JSON.stringify({ cosmiconfig: { searchPlaces: ['other-tool.js'] } }))
    await writeFile(join(dir, 'other-tool.js'), script(dir))
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.stderr).toBe('')
    expect(check.code).toBe(0)
    expect(check.stdout).toMatch(/^config {3}none found/)
    expect(existsSync(join(dir, RAN)), 'other-tool.js was loaded as the config').toBe(false)
  })
})
