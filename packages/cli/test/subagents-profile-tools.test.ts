import { beforeAll, describe, type ExpectStatic } from 'vitest'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { CLOCK_TOOL, bosun, requireBuild, writeProject, it, type Result } from './helpers.js'

beforeAll(requireBuild)

/** A plugin that contributes a `web` tool with `addTool`, as a search plugin would. */
const WEB_SEARCH_PLUGIN = `export default {
  kind: 'bosun-plugin',
  name: 'web-search',
  setup({ addTool }) {
    addTool({ name: 'web', description: 'Searches the web.', parameters: { type: 'object' }, execute: () => 'nothing found' })
  },
}
`

/** subagents first, then a plugin that adds a tool its profile names: the order the check used to defer on. */
const config = (tools: string[]) => `tools:
  - ./tools/read-file.mjs
plugins:
  - - subagents
    - agents:
        researcher:
          tools: [${tools.join(', ')}]
  - ./web-search.mjs
`

const FILES = {
  'tools/read-file.mjs': CLOCK_TOOL.replace("name: 'clock'", "name: 'read-file'"),
  'web-search.mjs': WEB_SEARCH_PLUGIN,
}

/** A refusal of `researcher`'s `read_file`, with the tools the agent has (`tools`) listed after it. */
function expectRefused(expect: ExpectStatic, result: Result, tools: string): void {
  expect(result.code).toBe(1)
  expect(result.stdout).toBe('')
  const lines = result.stderr.trimEnd().split('\n')
  expect(lines.slice(0, 2)).toEqual([
    'error PLUGIN_OPTIONS_INVALID: Invalid options for plugin "subagents" (plugins[0]):',
    '  - $.agents.researcher.tools[0]: names no tool — did you mean "read-file"? (found "read_file")',
  ])
  expect(lines[2]).toMatch(new RegExp(`^The agent's tools: ${tools} \\(its own and those its plugins add\\); and the subagent tools \\(spawn_agent, .*correct the name \\(a tool's name, not its file\\), or leave "tools" out to give them all\\.$`))
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

describe.concurrent('a subagents profile whose tools entry names no tool (it would leave the child without it)', () => {
  it('is refused by config check and run alike', async ({ dir, expect }) => {
    await writeProject(dir, { tools: ['./tools/read-file.mjs'], plugins: [['subagents', { agents: { researcher: { tools: ['read_file'] } } }]] }, FILES)
    const [check, run] = await Promise.all([bosun(['config', 'check'], { cwd: dir }), bosun(['run', 'hello'], { cwd: dir })])
    for (const result of [check, run]) expectRefused(expect, result, 'read-file')
  })

  it('is refused by config check and run with a plugin after subagents, listing its tools too; run leaves no session', async ({ dir, expect }) => {
    await writeProject(dir, undefined, { ...FILES, 'bosun.config.yaml': config(['read_file', 'web']) })
    const [check, run] = await Promise.all([bosun(['config', 'check'], { cwd: dir }), bosun(['run', 'hello'], { cwd: dir })])
    for (const result of [check, run]) expectRefused(expect, result, 'read-file, web')
    expect(await readdir(join(dir, '.bosun/sessions')).catch(() => [])).toEqual([])
  })

  it('passes config check when each name is a tool, the later plugin\'s included', async ({ dir, expect }) => {
    await writeProject(dir, undefined, { ...FILES, 'bosun.config.yaml': config(['read-file', 'web']) })
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.stderr).toBe('')
    expect(check.code).toBe(0)
    expect(check.stdout).toContain('✓ the config is valid')
  })
})
