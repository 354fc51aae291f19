// `bosun plugins info retry` on a registry without Bosun's own packages (a company mirror) answered
// BUNDLED_WITH_CLI (exit 1): a user asking about a plugin bosun brings got no options, hooks or
// version. It shows the manifest of the copy the CLI brings, and says no install is needed. A local
// registry that has none of Bosun's packages (and the unrelated npm "retry") stands in.
import { afterAll, beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'
import { localRegistry, type LocalRegistry } from './local-registry.js'

let server: LocalRegistry

beforeAll(async () => {
  requireBuild()
  server = await localRegistry((url) =>
    url.pathname === '/retry' ? { name: 'retry', 'dist-tags': { latest: '0.13.1' }, versions: { '0.13.1': { name: 'retry', version: '0.13.1' } } } : undefined,
  )
})

afterAll(async () => {
  await server?.close()
})

describe.concurrent('plugins info of a plugin the CLI bundles, not on the registry', () => {
  it('shows its manifest and options, and says it comes with the CLI', async ({ dir, expect }) => {
    const result = await bosun(['plugins', 'info', 'retry', '--registry', server.url], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^@bosun\/plugin-retry \d+\.\d+\.\d+ {2}first-party\n/)
    expect(result.stdout).toContain('comes with the CLI: no install needed')
    expect(result.stdout).toMatch(/\nconfig name {5}retry\n/)
    expect(result.stdout).toMatch(/\nhooks {11}llm\/stream\n/)
    expect(result.stdout).toMatch(/\n {2}maxAttempts /)
    expect(result.stderr).toContain('Name it in your config as "retry": nothing to install.')
    expect(result.stderr).not.toContain('bosun plugins add')
  })

  it('--json: the manifest, its options, and bundled: true', async ({ dir, expect }) => {
    const result = await bosun(['plugins', 'info', 'retry', '--json', '--registry', server.url], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    const info = JSON.parse(result.stdout) as { options: { key: string }[] }
    expect(info).toMatchObject({ name: '@bosun/plugin-retry', kind: 'plugin', configName: 'retry', bundled: true, hooks: ['llm/stream'] })
    expect(info.options.map((option) => option.key)).toContain('maxAttempts')
  })

  it('a version the bundled copy is not: BUNDLED_WITH_CLI, as before (never another version shown as the one asked for)', async ({ dir, expect }) => {
    const result = await bosun(['plugins', 'info', 'retry@99.0.0', '--registry', server.url], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('error BUNDLED_WITH_CLI: retry comes with the CLI')
  })

  // Bosun's own stores and adapters declared no range ("(no range declared)"), unlike its plugins.
  it('a store the CLI bundles: its @bosun/core range is shown', async ({ dir, expect }) => {
    const result = await bosun(['plugins', 'info', 'store-jsonl', '--registry', server.url], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/\n@bosun\/core {5}\^\d+\.\d+\.\d+ {2}✓ the running @bosun\/core \S+ satisfies it\n/)
  })
})
