import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, readEvents, requireBuild, writeProject, it } from './helpers.js'

beforeAll(requireBuild)

/** The exit code docs/cli.md documents for a wait that can never end. */
const STALLED = 4

/** A plugin whose setup returns a promise that nothing will ever settle (and keeps nothing running). */
const STUCK_PLUGIN = `export default {
  kind: 'bosun-plugin',
  name: 'stuck',
  setup: () => new Promise(() => {}),
}
`

// Node would end these processes with exit code 13 and no message (an unsettled top-level await).
describe.concurrent('a wait that can never end is named, with its own exit code', () => {
  it('a config file whose top-level await never settles', async ({ dir, expect }) => {
    await writeProject(dir, undefined, { 'bosun.config.mjs': 'await new Promise(() => {})\nexport default {}\n' })
    const result = await bosun(['run', 'hi'], { cwd: dir })
    expect(result.code).toBe(STALLED)
    expect(result.stderr).toBe(
      `error STALLED: The config file ${join(dir, 'bosun.config.mjs')} never finished loading: its code awaits something that can never happen (nothing is left running that could finish it). Check its top-level awaits.\n`,
    )
  })

  // serve names a setup still running after BOSUN_SLOW_SETUP_MS (serve-slow-setup.test.ts): that
  // timer must not keep alive a process with nothing else left to do, nor print before STALLED.
  it('a plugin setup that never settles, in run, config check and serve', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: ['./stuck.mjs'] }, { 'stuck.mjs': STUCK_PLUGIN })
    const [run, check, serve] = await Promise.all([bosun(['run', 'hi'], { cwd: dir }), bosun(['config', 'check'], { cwd: dir }), bosun(['serve', '--port', '0'], { cwd: dir })])
    for (const result of [run, check, serve]) {
      expect(result.code).toBe(STALLED)
      expect(result.stderr).toBe(
        `error STALLED: Plugin "stuck" (plugins[0], "./stuck.mjs" in ${join(dir, 'bosun.config.json')}) never finished its setup: setup returned a promise that can never settle (nothing is left running that could settle it). Fix the plugin's setup, or remove it from the config.\n`,
      )
    }
  })

  it('a turn that waits on a tool that never settles', async ({ dir, expect }) => {
    const tool = `export default { name: 'hang', description: 'Never answers.', parameters: { type: 'object' }, execute: () => new Promise(() => {}) }\n`
    await writeProject(dir, { model: { adapter: 'scripted', options: { responses: [{ toolCalls: [{ name: 'hang', args: {} }] }] } }, tools: ['./hang.mjs'] }, { 'hang.mjs': tool })
    const result = await bosun(['run', '--session', 'hung', 'hi'], { cwd: dir })
    expect(result.code).toBe(STALLED)
    expect(result.stderr).toContain('error STALLED: The turn in session hung never finished: a plugin hook, a tool or the model adapter awaits something')
    expect((await readEvents(dir, 'hung')).map((event) => event.type)).toContain('tool/call')
  })
})
