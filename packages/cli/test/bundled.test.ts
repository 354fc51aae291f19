// The parts the CLI ships: a config naming Bosun's adapters and plugins works where none of them
// is installed — in this repository, whose root has only the CLI, the core and the stores (issue:
// "a config at the root naming openai … fails with cannot be found"), as in a fresh project.
import { mkdtemp, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { bosun, requireBuild, writeProject } from './helpers.js'

beforeAll(requireBuild)

const root = resolve(fileURLToPath(new URL('../../../', import.meta.url)))
let dir: string
beforeEach(async () => {
  // In the repository (git-ignored): names resolve from here up to the root's node_modules.
  dir = await mkdtemp(join(root, '.bundled-test-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const PLUGINS = [
  'retry',
  ['rate-limit', { turnsPerMinute: 20 }],
  ['content-filter', { rules: [{ id: 'no-secrets', keywords: ['password'], action: 'reject' }] }],
  ['compaction', { contextWindow: 128000 }],
  ['subagents', { agents: { researcher: { system: 'You research.' } } }],
]

describe('bosun config check, in the repository, with nothing but the CLI installed', () => {
  test.each([
    ['openai', { baseURL: 'http://127.0.0.1:9/v1', model: 'gpt-4.1', apiKeyEnv: 'BUNDLED_TEST_KEY' }],
    ['anthropic', { baseURL: 'http://127.0.0.1:9', model: 'claude-sonnet-4-5', apiKeyEnv: 'BUNDLED_TEST_KEY' }],
  ] as const)('%s with retry, rate-limit, content-filter, compaction and subagents: taken from the CLI', async (adapter, options) => {
    await writeProject(dir, { model: { adapter, options }, plugins: PLUGINS })
    const result = await bosun(['config', 'check'], { cwd: dir, env: { BUNDLED_TEST_KEY: 'test-key-value' } })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`adapter  ${adapter} {2}@bosun/adapter-${adapter} \\S+ \\(bundled with bosun\\)`))
    expect(result.stdout).toMatch(/1\. retry[\s\S]*2\. rate-limit[\s\S]*3\. content-filter[\s\S]*4\. compaction[\s\S]*5\. subagents/)
    // Each plugin says it is the CLI's copy, with its version, not just its name again.
    for (const [index, name] of ['retry', 'rate-limit', 'content-filter', 'compaction', 'subagents'].entries()) {
      expect(result.stdout).toMatch(new RegExp(`${index + 1}\\. ${name} {2}@bosun/plugin-${name} \\d+\\.\\d+\\.\\d+\\S* \\(bundled with bosun\\)\n`))
    }
    expect(result.stdout).toContain('✓ the config is valid')
  })

  test('a misspelt name gets "did you mean", and no install command for the typo', async () => {
    await writeProject(dir, { model: { adapter: 'opnai', options: { model: 'x' } }, plugins: ['retyr'] })
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Did you mean "openai" (@bosun/adapter-openai)?')
    expect(result.stderr).toContain('Did you mean "retry" (@bosun/plugin-retry)?')
    expect(result.stderr).not.toMatch(/npm install \S*(opnai|retyr)/)
  })
})
