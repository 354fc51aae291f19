// A config file whose code throws as it runs (U1: `plugins: [retry]`, `retry` never imported)
// said only "ReferenceError: retry is not defined" — not in which file, nor at which line.
import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { configProblems, configProjects } from '../testing/config-projects.js'

const here = dirname(fileURLToPath(import.meta.url))
const project = configProjects('bosun-thrown-at-')

// Types, an enum and collapsed spaces before the throw: the TS the user wrote is not what runs.
const TYPED_LINES = 'type Named = { name: string }\nenum Level {\n  Low,\n  High,\n}\ninterface Unused {\n  a: number\n}\n'

describe('a config module that throws as it runs', () => {
  it('a TS config names the file and the line (jiti keeps lines, not columns)', async () => {
    const dir = await project({
      'bosun.config.ts': `${TYPED_LINES}export default {\n  system: String(Level.High),\n  plugins: [\n    'step-limit',     retry as unknown as Named,\n  ],\n}\n`,
    })
    expect(await configProblems(dir)).toEqual([`loading the file threw: ReferenceError: retry is not defined (thrown at ${join(dir, 'bosun.config.ts')}:12)`])
  }, 60_000)

  // In Node, not Vitest: Vitest runs the config's import() itself, with frames of its own.
  it('an ES module config Node runs as it is names the line and the column', async () => {
    const dir = await project({ 'bosun.config.mjs': "export default {\n  plugins: [\n    'step-limit', retry,\n  ],\n}\n" })
    const core = join(here, '../../dist/config/index.js')
    const script = `import(${JSON.stringify(core)}).then(({ loadConfig }) => loadConfig({ cwd: ${JSON.stringify(dir)} })).catch((error) => console.log(JSON.stringify(error.details.problems)))`
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script])
    expect((JSON.parse(stdout) as { message: string }[]).map((problem) => problem.message))
      .toEqual([`loading the file threw: ReferenceError: retry is not defined (thrown at ${join(dir, 'bosun.config.mjs')}:3:19)`])
  }, 60_000)

  it('a local file the config imports names that file', async () => {
    const dir = await project({
      'bosun.config.ts': "import guard from './plugins/guard.ts'\n\nexport default { plugins: [guard] }\n",
      'plugins/guard.ts': `${TYPED_LINES}export default { name: 'guard', setup() {}, level: missingLevel }\n`,
    })
    expect(await configProblems(dir)).toEqual([`loading the file threw: ReferenceError: missingLevel is not defined (thrown at ${join(dir, 'plugins', 'guard.ts')}:9)`])
  }, 60_000)

  it('a plugin named by path names its file and line', async () => {
    const dir = await project({
      'bosun.config.json': JSON.stringify({ plugins: ['./plugins/guard.ts'] }),
      'plugins/guard.ts': `${TYPED_LINES}\nexport default { name: 'guard', setup() {}, level: missingLevel }\n`,
    })
    expect(await configProblems(dir)).toEqual([`./plugins/guard.ts failed to load: ReferenceError: missingLevel is not defined (thrown at ${join(dir, 'plugins', 'guard.ts')}:10)`])
  }, 60_000)

  it('code of an installed package that throws is not placed in the project', async () => {
    const dir = await project({
      'bosun.config.json': JSON.stringify({ plugins: ['bosun-plugin-throws'] }),
      'node_modules/bosun-plugin-throws/package.json': JSON.stringify({ name: 'bosun-plugin-throws', version: '1.0.0', type: 'module', exports: './index.js' }),
      'node_modules/bosun-plugin-throws/index.js': 'export default { name: nowhere }\n',
    })
    expect(await configProblems(dir)).toEqual(['bosun-plugin-throws failed to load: ReferenceError: nowhere is not defined'])
  }, 60_000)
})
