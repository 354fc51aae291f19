// A JSON or YAML config can name the ai-sdk adapter but cannot give it a model (a model is an
// object only code makes): the refusal says to write the config in TypeScript.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '@bosun/core/config'
import { afterAll, beforeAll, expect, it } from 'vitest'

const ADVICE = "an AI SDK model object, e.g. openai('gpt-4.1') from @ai-sdk/openai, which only a TypeScript config (bosun.config.ts) or code can give: write this config in TypeScript"

// Inside this package, so that "ai-sdk" resolves to it as it would in a user's project.
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(fileURLToPath(new URL('.', import.meta.url)), '.json-config-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

it('a JSON config giving the model as a string is refused with that advice', async () => {
  const file = join(dir, 'bosun.config.json')
  await writeFile(file, JSON.stringify({ model: { adapter: 'ai-sdk', options: { model: 'gpt-4.1' } } }))
  await expect(loadConfig({ cwd: dir, file })).rejects.toMatchObject({
    code: 'CONFIG_INVALID',
    message: expect.stringContaining(`$.model.options.model (adapter "ai-sdk"): must be ${ADVICE} (found "gpt-4.1")`),
  })
})
