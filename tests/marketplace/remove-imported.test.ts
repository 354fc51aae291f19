// `bosun plugins remove` of a package the TypeScript config imports (`import wordBan from
// 'bosun-plugin-word-ban'`, `plugins: [[wordBan, {…}]]` — typed options, as a plugin's README may
// suggest): the entry is a plugin object, not a name, so no entry "names" the package, and the
// package was uninstalled under the import. The next `bosun run` failed with "Cannot find module",
// and remove had said nothing. It must refuse, say what to take out, and uninstall nothing.
// Real files and the built CLI; the package is laid in node_modules by hand (no registry needed).
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv, describe as described, run } from '../release/processes.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const BIN = join(root, 'packages/cli/dist/bin.js')
const PACKAGE_JSON = '{ "name": "app", "private": true, "type": "module", "dependencies": { "bosun-plugin-word-ban": "^1.0.0" } }\n'
const CONFIG = `import wordBan from 'bosun-plugin-word-ban'

export default {
  plugins: [
    'retry',
    [wordBan, { words: ['password'] }],
  ],
}
`

let work: string
let app: string

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b tsconfig.build.json); the test drives the built CLI.`)
  work = await realpath(await mkdtemp(join(tmpdir(), 'bosun-remove-imported-')))
  app = join(work, 'app')
  const plugin = join(app, 'node_modules/bosun-plugin-word-ban')
  await mkdir(plugin, { recursive: true })
  await writeFile(join(plugin, 'package.json'), '{ "name": "bosun-plugin-word-ban", "version": "1.0.0", "type": "module", "main": "index.js", "keywords": ["bosun-plugin"] }\n')
  await writeFile(join(plugin, 'index.js'), "export default { kind: 'bosun-plugin', name: 'word-ban', setup() {} }\n")
  await writeFile(join(app, 'package.json'), PACKAGE_JSON)
  await writeFile(join(app, 'bosun.config.ts'), CONFIG)
})

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true })
})

describe('bosun plugins remove of a package the config imports', () => {
  it('refuses, names the import to take out, and leaves the package, package.json and the config as they were', async () => {
    const env = cleanEnv({ npm_config_userconfig: join(work, 'npmrc'), npm_config_cache: join(work, 'npm-cache'), NO_COLOR: '1' })
    const args = ['plugins', 'remove', 'word-ban']
    const result = await run(process.execPath, [BIN, ...args], { cwd: app, env })
    expect(result.code, described('bosun', args, { cwd: app, env }, result)).toBe(1)
    expect(result.stderr).toContain(
      "bosun.config.ts imports bosun-plugin-word-ban ('bosun-plugin-word-ban'): take that import, and the plugins entry that uses it, out of bosun.config.ts first, then run bosun plugins remove word-ban again. Nothing was uninstalled.",
    )
    expect(existsSync(join(app, 'node_modules/bosun-plugin-word-ban/index.js'))).toBe(true)
    expect(await readFile(join(app, 'package.json'), 'utf8')).toBe(PACKAGE_JSON)
    expect(await readFile(join(app, 'bosun.config.ts'), 'utf8')).toBe(CONFIG)
  })
})
