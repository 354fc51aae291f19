// /compact in a chat whose agent has no compaction plugin (review V1): it printed "compacting…"
// and then NO_COMPACTION — a start, then a refusal. Only the error is said.
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'

beforeAll(requireBuild)

describe('bosun chat: /compact without a compaction plugin', () => {
  it('says only the error, which names the plugin to add', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: [] })
    const result = await bosun(['chat', '--session', 'plain'], { cwd: dir, input: 'hello\n/compact\n' })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('error NO_COMPACTION: No plugin compacts this agent: add a compaction plugin (e.g. "compaction") to its plugins.')
    expect(result.stdout).not.toContain('compacting')
  })
})
