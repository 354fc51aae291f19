// A plugin written as CommonJS — `require('@bosun/core')`, `module.exports = definePlugin(…)`, in
// a package whose package.json says `"type": "commonjs"` (what `npm init` writes) — failed to load
// with `No "exports" main defined in …/@bosun/core/package.json` (U3): the core's exports answered
// an ES import only (a package with no `type` goes through jiti, whose resolver takes `import`).
// Node 20.19+ and 22.12+ load an ES module from require(), so the core's exports now have a
// `default` target, the same file as `import`: the module the plugin requires is the one the
// loader imported.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFile } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'

const CORE = resolve(fileURLToPath(import.meta.url), '../../..')

/**
 * Loads the project's config in a plain Node process with the built core (the test command
 * builds it first): this suite's workers resolve workspace packages with extra conditions
 * (`bosun-source`), which would let require() find the core where a user's Node does not.
 * Prints the plugins' names and options, or the error's code and message.
 */
function check(dir: string): Promise<string> {
  const script = `
    import { loadConfig, validateConfig } from ${JSON.stringify(join(CORE, 'dist/config/index.js'))}
    try {
      const resolved = await validateConfig(await loadConfig({ cwd: process.cwd(), validate: false }))
      const core = await import(${JSON.stringify(join(CORE, 'dist/index.js'))})
      const same = globalThis.requiredCore === undefined ? [] : [globalThis.requiredCore === core]
      console.log(JSON.stringify([...resolved.plugins.map((entry) => Array.isArray(entry) ? [entry[0].name, entry[1]] : [entry.name]), ...same]))
    } catch (error) {
      console.log(error.code + ' ' + error.message)
    }
  `
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  return new Promise((done, fail) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, env }, (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout.trim())))
  })
}
const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** A project with the workspace's @bosun/core linked in and a CommonJS plugin package installed. */
async function project(pluginSource: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-cjs-plugin-'))
  dirs.push(dir)
  await writeFile(join(dir, 'package.json'), '{ "name": "p", "private": true }\n')
  await mkdir(join(dir, 'node_modules/@bosun'), { recursive: true })
  await symlink(CORE, join(dir, 'node_modules/@bosun/core'), 'dir')
  await symlink(resolve(CORE, '../adapters/scripted'), join(dir, 'node_modules/@bosun/adapter-scripted'), 'dir')
  const plugin = join(dir, 'node_modules/bosun-plugin-legacy')
  await mkdir(plugin, { recursive: true })
  await writeFile(join(plugin, 'package.json'), JSON.stringify({ name: 'bosun-plugin-legacy', version: '1.0.0', type: 'commonjs', main: 'index.js' }))
  await writeFile(join(plugin, 'index.js'), pluginSource)
  await writeFile(join(dir, 'bosun.config.json'), JSON.stringify({ model: { adapter: 'scripted' }, plugins: [['legacy', { word: 'stop' }]] }))
  return dir
}

/** A CommonJS plugin taking `{ word }` of the given JSON Schema type. */
function legacyPlugin(wordType: 'string' | 'number'): string {
  return `
    const { definePlugin } = require('@bosun/core')
    module.exports = definePlugin({
      name: 'legacy',
      schema: { type: 'object', properties: { word: { type: '${wordType}' } }, required: ['word'], additionalProperties: false },
      setup() {},
    })
  `
}

describe('a CommonJS plugin', () => {
  it("require('@bosun/core') gets the core's own module: its definePlugin and schema check work", async () => {
    const dir = await project(legacyPlugin('string'))
    expect(await check(dir)).toBe(JSON.stringify([['legacy', { word: 'stop' }]]))
  })

  it('what it requires is the module the loader imported, not a second copy', async () => {
    const dir = await project(`globalThis.requiredCore = require('@bosun/core')\n${legacyPlugin('string')}`)
    expect(await check(dir)).toBe(JSON.stringify([['legacy', { word: 'stop' }], true]))
  })

  it('its options are checked by the core it required (a wrong type is the usual config error)', async () => {
    const dir = await project(legacyPlugin('number'))
    const answer = await check(dir)
    expect(answer).toMatch(/^CONFIG_INVALID /)
    expect(answer).toContain('$.plugins[0][1].word (plugin "legacy"): must be a number (found "stop")')
  })
})
