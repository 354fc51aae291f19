// The user's own files — a config's `./…` entries, and the config file itself — load whatever
// imports jiti accepts, as they always did: the config loader imports installed packages with
// Node's import() (no jiti on the default path), and Node refuses to link an extensionless or
// directory import, a package found only on NODE_PATH, or a JSON import without its attribute
// (review of d56e390). Each load runs in a child process on the built core: inside vitest, a
// module's import() goes through vite's resolver, which accepts what Node refuses.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-local-imports-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true })
    await writeFile(join(dir, name), text)
  }
  return dir
}

/** A tool module whose imports Node's import() refuses and jiti accepts. */
const LENIENT_IMPORTS = {
  'lib/describe.js': "module.exports = { describe: () => 'the time' }\n",
  'lib/words/index.js': "module.exports = { name: 'clock' }\n",
  'lib/data.json': '{ "parameters": { "type": "object" } }\n',
  'tools/clock.mjs': [
    "import lib from '../lib/describe'", // extensionless
    "import words from '../lib/words'", // a directory
    "import data from '../lib/data.json'", // JSON without `with { type: 'json' }`
    'export default { name: words.name, description: lib.describe(), parameters: data.parameters, execute: () => "now" }',
  ].join('\n'),
}

const here = dirname(fileURLToPath(import.meta.url))

/** What Node (not vitest) loads from `dir`'s config: the system prompt and the tools' descriptions. */
async function loadInNode(dir: string, env: Record<string, string> = {}): Promise<{ system?: string; tools: string[] }> {
  const core = join(here, '../../dist/config/index.js')
  // The default model's adapter, given as a bundled copy (the temp folder has no node_modules).
  const scripted = join(here, '../../../adapters/scripted/dist/index.js')
  const script = `import(${JSON.stringify(core)}).then(async ({ loadConfig, validateConfig }) => {
    const bundled = { '@bosun/adapter-scripted': () => import(${JSON.stringify(scripted)}) }
    const resolved = await validateConfig(await loadConfig({ cwd: ${JSON.stringify(dir)}, validate: false }), { bundled })
    console.log(JSON.stringify({ system: resolved.system, tools: resolved.tools.map((tool) => tool.description) }))
  })`
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { env: { ...process.env, ...env } })
  return JSON.parse(stdout) as { system?: string; tools: string[] }
}

describe("the user's own files load as jiti loads them", () => {
  it('a tool a JSON config names by path, with extensionless, directory and JSON imports', async () => {
    const dir = await project({ ...LENIENT_IMPORTS, 'bosun.config.json': JSON.stringify({ tools: ['./tools/clock.mjs'] }) })
    expect(await loadInNode(dir)).toEqual({ tools: ['the time'] })
  }, 60_000)

  it('an ES config file whose imports only jiti accepts', async () => {
    const dir = await project({
      ...LENIENT_IMPORTS,
      'bosun.config.mjs': "import clock from './tools/clock.mjs'\nimport words from './lib/words'\nexport default { system: `tools: ${words.name}`, tools: [clock] }\n",
    })
    expect(await loadInNode(dir)).toEqual({ system: 'tools: clock', tools: ['the time'] })
  }, 60_000)

  it('a local file importing a package found only on NODE_PATH', async () => {
    const shared = await project({ 'np-helper/package.json': '{ "name": "np-helper", "main": "index.js" }\n', 'np-helper/index.js': "module.exports = 'from NODE_PATH'\n" })
    const dir = await project({
      'bosun.config.json': JSON.stringify({ tools: ['./tools/echo.mjs'] }),
      'tools/echo.mjs': "import text from 'np-helper'\nexport default { name: 'echo', description: text, parameters: { type: 'object' }, execute: () => text }\n",
    })
    // NODE_PATH is read when Node starts.
    expect(await loadInNode(dir, { NODE_PATH: shared })).toEqual({ tools: ['from NODE_PATH'] })
  }, 60_000)
})
