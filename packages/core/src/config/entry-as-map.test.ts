import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from './load.js'

// An entry written as a map — YAML's `- retry: { maxAttempts: 3 }` — was told "The module should
// export default definePlugin(…)": advice about a module's default export, where there is no
// module, only an entry of the wrong form.
const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })))

async function problems(yaml: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bosun-entry-map-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'package.json'), '{ "name": "app" }')
  writeFileSync(join(dir, 'bosun.config.yaml'), yaml)
  const error = await loadConfig({ cwd: dir }).then(() => undefined, (caught: { details: { problems: { path: string; message: string }[] } }) => caught)
  return error!.details.problems.map(({ path, message }) => `${path}: ${message}`)
}

describe('an entry written as a map', () => {
  it('a plugin or a store: says the [name, options] form, with its name', async () => {
    expect(await problems('plugins:\n  - retry: { maxAttempts: 3 }\nstore:\n  store-jsonl: { dir: x }\n')).toEqual([
      '$.store: it is not a store made by defineStore() (found an object). In a config file a store is its name, or [name, options]: ["store-jsonl", { … }], not { "store-jsonl": { … } }.',
      '$.plugins[0]: it is not a plugin made by definePlugin() (found an object). In a config file a plugin is its name, or [name, options]: ["retry", { … }], not { "retry": { … } }.',
    ])
  })

  it('a tool: named by its path, without options', async () => {
    expect(await problems('tools:\n  - ./clock.mjs: {}\n')).toEqual([
      '$.tools[0]: it is not a tool or an array of tools (found an object). In a config file a tool is named by its path or package, without options: "./clock.mjs".',
    ])
  })

  it('an object of another shape keeps the advice about a module', async () => {
    expect(await problems('plugins:\n  - { name: guard, word: x }\n')).toEqual([
      '$.plugins[0]: it is not a plugin made by definePlugin() (found an object). The module should export default definePlugin({ name, schema, setup }).',
    ])
  })
})
