import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)

// cosmiconfig reads its own settings from the working directory's package.json before any search,
// with its own JSON parser: a package.json it could not read was "UNEXPECTED … a bug in bosun".
describe.concurrent('a package.json in the working directory that the config search cannot read', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['not valid JSON', '{"name": "app",\n  "bosun": {bad', /package\.json:\n {2}- \$: the file is not valid JSON: \S*package\.json:2:13: Expected property name or '\}'\. Fix the JSON there/],
    ['null', 'null\n', /package\.json:\n {2}- \$: the file is null, not an object\. Give it an object \(\{\}\), or delete it\./],
    ['with a byte-order mark', '\uFEFF{"name": "app"}\n', /package\.json:\n {2}- \$: the file starts with a byte-order mark, which the config search cannot read\. Save it as UTF-8 without one\./],
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

  it('a valid package.json with a bosun key still loads', async ({ dir, expect }) => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', bosun: { model: { adapter: 'scripted' } } }))
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.stderr).toBe('')
    expect(check.code).toBe(0)
    expect(check.stdout).toMatch(/^config {3}package\.json\nadapter {2}scripted/)
  })
})
