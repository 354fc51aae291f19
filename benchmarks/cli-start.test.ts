// cli-start.mjs at its smallest, so that the harness cannot rot: one run of `bosun --version`
// against this tree's build (the CLI tests need the build too), and its command line.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const here = dirname(fileURLToPath(import.meta.url))
const script = join(here, 'cli-start.mjs')
const run = (args: string[]) => promisify(execFile)(process.execPath, [script, ...args], { cwd: here })

test('one interleaved run prints the table: node alone, then each command, wall and CPU time', async () => {
  expect(existsSync(join(here, '../packages/cli/dist/bin.js')), 'build first: npx tsc -b tsconfig.build.json').toBe(true)
  const { stdout } = await run(['--runs', '1', '--command=--version'])
  expect(stdout).toContain('1 interleaved runs each')
  expect(stdout).toContain('| command | tree: wall | tree: CPU |')
  expect(stdout).toMatch(/\| `node -e ""` \| \d+ \/ \*\*\d+\*\* \/ \d+ \| \d+ \/ \*\*\d+\*\* \/ \d+ \|/)
  expect(stdout).toMatch(/\| `bosun --version` \| \d+ \/ \*\*\d+\*\* \/ \d+ \| \d+ \/ \*\*\d+\*\* \/ \d+ \|/)
})

test('--help prints the usage; a bad --runs is refused with it (exit 2) before anything runs', async () => {
  expect((await run(['--help'])).stdout).toContain('usage: node benchmarks/cli-start.mjs')
  const refused = await run(['--runs', 'many']).catch((error: { code: number; stderr: string }) => error)
  expect(refused).toMatchObject({ code: 2 })
  expect((refused as { stderr: string }).stderr).toContain('--runs must be a whole number')
})
