// scripts/test-crash.mjs's command line (`pnpm test:crash`), as benchmarks/smoke.test.ts checks
// run.mjs's: --help and mistakes answer at once, without starting the campaign.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const script = join(import.meta.dirname, '../../scripts/test-crash.mjs')

/**
 * Runs the script with no PATH: had it gone on to the campaign (`npx vitest run tests/crash`), the
 * spawn would have failed and the script exited 1; exit 0 or 2 shows it stopped before.
 */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [script, ...args], { env: { PATH: '' } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }))
}

describe('scripts/test-crash.mjs: the command line', () => {
  it.each([['--help'], ['-h'], ['--kills', '5', '--help'], ['--bogus', '-h']].map((args) => [args.join(' '), args] as const))('%s prints the usage and exits 0, running nothing', async (_, args) => {
    const { code, stdout, stderr } = await run(args)
    expect(code).toBe(0)
    expect(stdout).toMatch(/^usage: node scripts\/test-crash\.mjs/)
    expect(stdout).toContain('--kills N')
    expect(stderr).toBe('')
  })

  it.each([
    [['--bogus'], 'unknown argument "--bogus"'],
    [['help'], 'unknown argument "help"'],
    [['--kills=5'], 'unknown argument "--kills=5"'],
    [['--kills'], '--kills needs a positive integer, got undefined'],
    [['--kills', '0'], '--kills needs a positive integer, got "0"'],
    [['--seed', 'x'], '--seed needs a positive integer, got "x"'],
    [['--kills', '5', '--kills', '6'], '--kills is given twice'],
  ].map(([args, says]) => [(args as string[]).join(' '), args as string[], says as string] as const))('%s is refused with the usage and exit 2, running nothing', async (_, args, says) => {
    const { code, stdout, stderr } = await run(args)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.split('\n\n')[0]).toBe(`test-crash.mjs: ${says}`)
    expect(stderr).toContain('\n\nusage: node scripts/test-crash.mjs')
  })

  it('valid options go on to the campaign (here: exit 1, as npx cannot be found without PATH)', async () => {
    expect((await run(['--', '--kills', '3', '--seed', '2'])).code).toBe(1)
  })
})
