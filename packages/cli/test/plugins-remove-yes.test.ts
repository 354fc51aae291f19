// Scripts pass --yes to `bosun plugins add` and `bosun plugins remove` alike; remove refused it as
// an unknown option (usage error, exit 2), so `remove x --yes` in such a script did nothing.
// remove asks nothing (it undoes what add did, nothing new is installed): --yes is accepted.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)

describe.concurrent('bosun plugins remove --yes', () => {
  it.for(['--yes', '-y'])('%s is accepted, and the entry goes out of the config', async (flag, { dir, expect }) => {
    await writeFile(join(dir, 'bosun.config.json'), `${JSON.stringify({ plugins: ['retry', ['word-guard', { words: ['x'] }]] }, null, 2)}\n`)
    await writeFile(join(dir, 'package.json'), '{ "name": "app", "private": true }\n')
    const result = await bosun(['plugins', 'remove', 'word-guard', flag], { cwd: dir })
    expect(result.stderr).toContain('Removed word-guard from "plugins" in bosun.config.json.')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(await readFile(join(dir, 'bosun.config.json'), 'utf8'))).toEqual({ plugins: ['retry'] })
  })

  it('its help says that remove asks nothing', async ({ dir, expect }) => {
    const result = await bosun(['plugins', 'remove', '--help'], { cwd: dir })
    expect(result.stdout).toMatch(/-y, --yes +.*asks nothing/)
  })
})
