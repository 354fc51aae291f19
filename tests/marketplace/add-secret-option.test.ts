// `bosun plugins add` with an option the plugin's schema accepts but the config loader refuses —
// a literal token under a secret-looking key, a URL with a password. Against a real registry
// (Verdaccio on 127.0.0.1), a plugin made by the create-bosun-plugin template with such options:
// the command must refuse before installing, leave the config file as it was, and never print the
// value. Before, the schema alone was checked: the package was installed, the token written into
// the config and printed in the "Added …" line, and then `bosun config check` refused the config.
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv, describe as described, run } from '../release/processes.js'
import { startRegistry, type Registry } from '../release/registry.js'
import { publishFixture } from './fixtures.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const BIN = join(root, 'packages/cli/dist/bin.js')
const SECRET = 'npm_AbCdEf123456-ALERT-SECRET'
const CONFIG = `# The app's agent: this comment stays
plugins:
  - retry   # bundled with the CLI
`

let work: string
let registry: Registry
let env: Record<string, string>
let app: string

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b tsconfig.build.json); the test drives the built CLI.`)
  work = await realpath(await mkdtemp(join(tmpdir(), 'bosun-add-secret-')))
  registry = await startRegistry(join(work, 'registry'))
  env = cleanEnv({
    npm_config_userconfig: registry.npmrc,
    npm_config_globalconfig: join(work, 'npm-globalconfig'),
    npm_config_cache: join(work, 'npm-cache'),
    NO_COLOR: '1',
  })
  const authors = join(work, 'authors')
  await mkdir(authors)
  // The template's plugin with two more options an author might well give it.
  await publishFixture(authors, 'alert-guard', env, {
    editSource: (file, source) =>
      file === 'options.ts'
        ? source.replace("    ignoreCase: {", "    alertToken: { type: 'string' },\n    alertUrl: { type: 'string' },\n    ignoreCase: {")
        : source,
  })
  app = join(work, 'app')
  await mkdir(app)
  await writeFile(join(app, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n')
  await writeFile(join(app, 'bosun.config.yaml'), CONFIG)
}, 0)

afterAll(async () => {
  await registry?.close()
  if (work !== undefined) await rm(work, { recursive: true, force: true })
}, 120_000)

describe('bosun plugins add with an option the config loader refuses', { timeout: 0 }, () => {
  it.each([
    [`alertToken=${SECRET}`, '$.alertToken: a literal secret in a config file is refused'],
    [`alertUrl=https://bot:${SECRET}@hooks.example/alert`, '$.alertUrl: holds a URL with a credential before the host'],
  ])('--option %s is refused before anything is installed or written, and not shown', async (pair, problem) => {
    const args = ['plugins', 'add', 'alert-guard', '-o', 'words=x', '-o', pair, '--yes']
    const result = await run(process.execPath, [BIN, ...args], { cwd: app, env })
    expect(result.code, described('bosun', args, { cwd: app, env }, result)).toBe(1)
    expect(result.stderr).toContain('error OPTION_INVALID: Invalid options for bosun-plugin-alert-guard:')
    expect(result.stderr).toContain(problem)
    expect(result.stderr).toContain('Nothing was installed or written.')
    expect(`${result.stdout}${result.stderr}`).not.toContain('ALERT-SECRET')
    expect(await readFile(join(app, 'bosun.config.yaml'), 'utf8')).toBe(CONFIG)
    expect(await readFile(join(app, 'package.json'), 'utf8')).toBe('{ "name": "app", "private": true, "type": "module" }\n')
    expect(existsSync(join(app, 'node_modules'))).toBe(false)
  })
})
