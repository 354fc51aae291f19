import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe } from 'vitest'
import { BIN, bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)

const TRACE = pathToFileURL(resolve(import.meta.dirname, 'module-trace.mjs')).href

/** Runs `bosun ...args` in `dir` and returns the result with every module the process loaded. */
async function traced(args: string[], dir: string) {
  const file = join(dir, `modules-${args.join('-')}.txt`)
  const result = await bosun(args, { cwd: dir, env: { NODE_OPTIONS: `--import=${TRACE}`, BOSUN_TEST_MODULE_TRACE: file } })
  const modules = (await readFile(file, 'utf8')).split('\n').filter(Boolean)
  return { ...result, modules }
}

/** The modules of a package, built in the workspace or installed. */
const of = (...names: string[]) => (url: string) => names.some((name) => url.includes(`/packages/${name}/`) || url.includes(`/node_modules/${name}/`))

// What each command loads is what it costs to start (docs/benchmarks.md, "The CLI's start"): these
// keep what a command does not need from creeping back onto its path.
describe.concurrent('what a command loads', () => {
  it('bosun --version and -v print the version and load neither commander nor the core', async ({ dir, expect }) => {
    const { version } = JSON.parse(await readFile(resolve(BIN, '../../package.json'), 'utf8')) as { version: string }
    for (const flag of ['--version', '-v']) {
      const result = await traced([flag], dir)
      expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' })
      expect(result.modules.filter(of('commander', 'core', '@bosun/core'))).toEqual([])
    }
  })

  it('bosun --help loads no Bosun package but the CLI', async ({ dir, expect }) => {
    const result = await traced(['--help'], dir)
    expect(result.code).toBe(0)
    expect(result.modules.filter(of('core', '@bosun/core', 'adapters', 'plugins', 'host'))).toEqual([])
  })

  it('bosun config check without a store in the config does not load the JSONL store', async ({ dir, expect }) => {
    const result = await traced(['config', 'check'], dir)
    expect(result.code).toBe(0)
    expect(result.modules.filter(of('plugins/store-jsonl', '@bosun/plugin-store-jsonl'))).toEqual([])
  })

  it('bosun run loads neither the chat, the marketplace, the host nor an adapter the config does not name', async ({ dir, expect }) => {
    const result = await traced(['run', 'hello'], dir)
    expect(result).toMatchObject({ code: 0, stdout: 'echo: hello\n' })
    expect(result.modules.filter((url) => /\/cli\/dist\/(chat|marketplace)\//.test(url))).toEqual([])
    expect(result.modules.filter(of('host', 'web', 'adapters/openai', 'adapters/anthropic', 'plugins/store-postgres', '@bosun/host', '@bosun/web'))).toEqual([])
    // The JSONL store it writes the session with is loaded: the filter above would not miss a path.
    expect(result.modules.filter(of('plugins/store-jsonl', '@bosun/plugin-store-jsonl'))).not.toEqual([])
  })

  it('bosun run and config check on the default config do not load jiti (only a TypeScript file needs it)', async ({ dir, expect }) => {
    for (const args of [['run', 'hello'], ['config', 'check']]) {
      const result = await traced(args, dir)
      expect(result.code).toBe(0)
      expect(result.modules.filter(of('jiti'))).toEqual([])
    }
  })

  it('bosun run and config check on the default config do not load ajv (their schemas have generated validators)', async ({ dir, expect }) => {
    for (const args of [['run', 'hello'], ['config', 'check']]) {
      const result = await traced(args, dir)
      expect(result.code).toBe(0)
      // The generated code requires a few of ajv's runtime helpers (ucs2length…), not ajv.
      expect(result.modules.filter((url) => of('ajv')(url) && !url.includes('/ajv/dist/runtime/'))).toEqual([])
      // The trace sees require() too (module-trace.mjs): here, that helper the generated code requires.
      expect(result.modules.some((url) => url.includes('/ajv/dist/runtime/'))).toBe(true)
    }
  })
})
