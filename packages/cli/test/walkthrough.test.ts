// Mismatches between docs/cli.md and the CLI found by walking the docs as a newcomer. `bosun config
// check` with no config at all said ".bosun/sessions next to the config, which names no store",
// which sent a newcomer looking for a config file that does not exist.
import { beforeAll, describe } from 'vitest'
import { bosun, requireBuild, writeProject, it } from './helpers.js'

beforeAll(requireBuild)

describe.concurrent('bosun config check: the default store', () => {
  it('with no config: .bosun/sessions in the current folder, and no mention of a config beside it', async ({ dir, expect }) => {
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('         dir: .bosun/sessions (.bosun/sessions in the current folder: there is no config)\n')
    expect(result.stdout).not.toContain('next to the config')
  })

  it('with a config that names no store: .bosun/sessions next to that config', async ({ dir, expect }) => {
    await writeProject(dir, { system: 'no store here' })
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('         dir: .bosun/sessions (.bosun/sessions next to the config, which names no store)\n')
  })
})

describe.concurrent('bosun run --help: the exit codes', () => {
  // docs/cli.md's table has 2 for usage errors, and `bosun run` with no prompt exits 2; the
  // command's own help listed every code but that one.
  it('lists 2 (usage) beside the others, as the exit code of a run without a prompt', async ({ dir, expect }) => {
    const help = await bosun(['run', '--help'], { cwd: dir })
    expect(help.stdout).toMatch(/Exit code: 0 completed .*, 1 error, 2 usage \(no prompt, an unknown option\), 3 blocked by a plugin, 4 stalled .*, 130 aborted/)
    const noPrompt = await bosun(['run'], { cwd: dir })
    expect(noPrompt.code).toBe(2)
  })
})
