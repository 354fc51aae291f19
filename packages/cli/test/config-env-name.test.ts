// A key pasted where an …Env option's variable name belongs is never printed: not by the config
// loader's check, nor by an adapter made in a TypeScript/JavaScript config (its "variable … is not
// set" message named the variable, which was the key itself).
import { dirname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'

beforeAll(requireBuild)

const here = dirname(fileURLToPath(import.meta.url))
/** The built openai adapter the CLI itself bundles, imported by the config as a user's would. */
const OPENAI = pathToFileURL(resolve(here, '../../adapters/openai/dist/index.js')).href

/** Each passes for a variable's name by its characters alone. */
const PASTED = ['ghp_PASTEDabcdefghijklmnopqrstuvwxyz0123', 'AKIAPASTED0EXAMPLE00']

describe.concurrent('bosun config check: a key pasted into apiKeyEnv', () => {
  for (const pasted of PASTED) {
    it(`is refused and not shown when the adapter is made in the config (${pasted.slice(0, 4)}…)`, async ({ dir, expect }) => {
      const config = `import { openai } from ${JSON.stringify(OPENAI)}\nexport default { model: openai({ model: 'gpt-4o', apiKeyEnv: ${JSON.stringify(pasted)} }) }\n`
      await writeProject(dir, undefined, { 'bosun.config.mjs': config })
      const result = await bosun(['config', 'check'], { cwd: dir })
      expect(result.code).not.toBe(0)
      expect(result.stderr).toContain('$.apiKeyEnv: must name an environment variable')
      expect(result.stderr).toContain('not hold the key itself')
      expect(result.stdout + result.stderr).not.toContain('PASTED')
    })

    it(`is refused and not shown when the config names the adapter (${pasted.slice(0, 4)}…)`, async ({ dir, expect }) => {
      await writeProject(dir, { model: { adapter: 'openai', options: { model: 'gpt-4o', apiKeyEnv: pasted } } })
      const result = await bosun(['config', 'check'], { cwd: dir })
      expect(result.code).not.toBe(0)
      expect(result.stderr).toContain('$.model.options.apiKeyEnv (adapter "openai"): must name an environment variable')
      expect(result.stdout + result.stderr).not.toContain('PASTED')
    })
  }
})
