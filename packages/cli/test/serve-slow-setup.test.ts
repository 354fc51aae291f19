// `bosun serve` builds the config's agent once before it listens (the config check), running every
// plugin's setup. A setup that waits on something slow (a server, a lock, a file) held the start
// with no output: no URL, no word of why. Now, after BOSUN_SLOW_SETUP_MS (default 5 s), one line on
// stderr names the plugin whose setup still runs — and serve keeps waiting: a legitimately slow
// setup is not cut short.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe } from 'vitest'
import { finished, it, requireBuild, start, waitFor, writeProject } from './helpers.js'

requireBuild()

/** A plugin whose setup returns at once. */
const QUICK_PLUGIN = `export default { kind: 'bosun-plugin', name: 'quick', setup() {} }
`

/** A plugin whose setup waits until the file `release` exists in the project folder (polled: the timer keeps the process alive, as a socket would). */
const GATED_PLUGIN = `import { existsSync } from 'node:fs'
export default {
  kind: 'bosun-plugin',
  name: 'gated',
  setup() {
    return new Promise((resolve) => {
      const poll = setInterval(() => {
        if (!existsSync('release')) return
        clearInterval(poll)
        resolve()
      }, 20)
    })
  },
}
`

const urlOf = (stdout: string): string | undefined => /listening on (http:\/\/\S+)/.exec(stdout)?.[1]

describe('bosun serve: a plugin setup that takes long', () => {
  it('says which plugin it still waits for, once, and starts when that setup finishes', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: ['./quick.mjs', './gated.mjs'] }, { 'quick.mjs': QUICK_PLUGIN, 'gated.mjs': GATED_PLUGIN })
    const child = start(['serve', '--port', '0'], { cwd: dir, env: { BOSUN_SLOW_SETUP_MS: '50' } })
    await waitFor(() => child.output.stderr.includes('gated'), 'the line naming the slow setup')
    expect(urlOf(child.output.stdout)).toBeUndefined()
    expect(existsSync(join(dir, 'release'))).toBe(false)
    await writeFile(join(dir, 'release'), '')
    await waitFor(() => urlOf(child.output.stdout) !== undefined, 'the URL')
    child.kill('SIGTERM')
    const result = await finished(child)
    expect(result.code).toBe(0)
    const notices = result.stderr.split('\n').filter((line) => line.includes('setup'))
    expect(notices).toEqual([
      'still waiting for the setup of plugin "gated" (plugins[1], "./gated.mjs" in bosun.config.json) after 50 ms: bosun serve listens once every plugin\'s setup has finished (Ctrl+C stops it)',
    ])
  })

  it('refuses a BOSUN_SLOW_SETUP_MS that is not a whole number of milliseconds', async ({ dir, expect }) => {
    await writeProject(dir, {})
    const result = await finished(start(['serve', '--port', '0'], { cwd: dir, env: { BOSUN_SLOW_SETUP_MS: '5s' } }))
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^error USAGE: BOSUN_SLOW_SETUP_MS must be a whole number of milliseconds from 1 to 3600000, got "5s"\./)
  })
})
