import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'
import { runInPty } from './pty.js'

beforeAll(requireBuild)

// Security review: `bosun plugins` printed an installed package's name, version and declared hooks
// as they were. The printer makes control characters visible on a terminal but lets SGR colour
// sequences through (they are the CLI's own), so a package.json could conceal (ESC [8m), blink or
// recolour the listing. `plugins info` already escaped every field; the list now does too.

/** SGR sequences the CLI never writes itself: conceal, blink, a 256-colour foreground. */
const SGR = ['\u001b[8m', '\u001b[5m', '\u001b[38;5;196m']

async function hostilePackage(dir: string): Promise<string> {
  const app = join(dir, 'app')
  const folder = join(app, 'node_modules', 'bosun-plugin-hostile')
  await mkdir(folder, { recursive: true })
  const manifest = { name: 'bosun-plugin-hostile', version: `1.0.0${SGR[0]}`, keywords: ['bosun-plugin'], bosun: { hooks: [`agent/pre-step${SGR[1]}`, `tool/result${SGR[2]}`, 'x\u001b]0;pwned\u0007'] } }
  await writeFile(join(folder, 'package.json'), JSON.stringify(manifest))
  return app
}

describe.concurrent('bosun plugins: an installed package\'s fields never reach the terminal as escape sequences (review)', () => {
  it('on a terminal, every field is shown with visible control characters', async ({ dir, expect }) => {
    const app = await hostilePackage(dir)
    const result = await runInPty(['plugins'], [{ wait_exit: true }], { cwd: app, cols: 200 })
    expect(result.ok, result.error ?? '').toBe(true)
    expect(result.exit_code).toBe(0)
    for (const sequence of SGR) expect(result.raw).not.toContain(sequence)
    expect(result.raw).not.toContain('\u001b]0;')
    expect(result.screen).toContain('1.0.0␛[8m')
    expect(result.screen).toContain('agent/pre-step␛[5m, tool/result␛[38;5;196m, x␛]0;pwned␇')
  })

  it('--json keeps the values exact (JSON escapes them) and parses back to them', async ({ dir, expect }) => {
    const app = await hostilePackage(dir)
    const result = await bosun(['plugins', '--json'], { cwd: app })
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain('\u001b')
    const [plugin] = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))
    expect(plugin.version).toBe(`1.0.0${SGR[0]}`)
    expect(plugin.hooks).toEqual([`agent/pre-step${SGR[1]}`, `tool/result${SGR[2]}`, 'x\u001b]0;pwned\u0007'])
  })
})
