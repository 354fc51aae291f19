import { beforeAll, describe } from 'vitest'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { bosun, requireBuild, writeProject, it } from './helpers.js'

beforeAll(requireBuild)

/** A plugin whose setup refuses to start (a service it needs is down). */
const REFUSING_PLUGIN = `export default {
  kind: 'bosun-plugin',
  name: 'refusing',
  setup() { throw new Error('the index service is down') },
}
`

const sessionFiles = async (dir: string) => (await readdir(join(dir, '.bosun/sessions')).catch(() => [])).filter((name) => name.endsWith('.jsonl'))

describe.concurrent('bosun run on a config whose plugin setup refuses', () => {
  it('leaves no session behind: the folder holds no log and sessions list shows none', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: ['./refusing.mjs'] }, { 'refusing.mjs': REFUSING_PLUGIN })
    const result = await bosun(['run', 'hello'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(`error PLUGIN_SETUP_FAILED: Plugin "refusing" failed in setup: the index service is down. In ${join(dir, 'bosun.config.json')}: $.plugins[0] (plugin "./refusing.mjs").\n`)
    expect(await sessionFiles(dir)).toEqual([])
    const listed = await bosun(['sessions', 'list'], { cwd: dir })
    expect(listed.stdout).toBe('')
    expect(listed.stderr).toContain('No sessions yet.')
  })

  it('leaves a resumed session as it was', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: [] }, { 'refusing.mjs': REFUSING_PLUGIN })
    expect((await bosun(['run', '-s', 'kept', 'hello'], { cwd: dir })).code).toBe(0)
    const before = await readFile(join(dir, '.bosun/sessions/kept.jsonl'))
    await writeProject(dir, { plugins: ['./refusing.mjs'] })
    const refused = await bosun(['run', '-s', 'kept', 'again'], { cwd: dir })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('PLUGIN_SETUP_FAILED')
    expect(await readFile(join(dir, '.bosun/sessions/kept.jsonl'))).toEqual(before)
    expect(await sessionFiles(dir)).toEqual(['kept.jsonl'])
  })
})
