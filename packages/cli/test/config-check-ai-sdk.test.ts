// Review Y11: `bosun config check` of a config whose model is an AI SDK model object
// (`openai.chat('gpt-4.1-nano')`) said "model (the adapter's default)" and dumped the provider
// object on the options line (`model: {"specificationVersion":"v3","supportedUrls":…`). The real
// bridge and the real @ai-sdk/openai, linked into the project as an install would put them.
import { beforeAll, describe } from 'vitest'
import { aiSdkProject } from './ai-sdk-project.js'
import { bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)

describe('bosun config check of an AI SDK model', () => {
  it("names the model object's provider and modelId, not the adapter's default, and never prints the object", async ({ dir, expect }) => {
    await aiSdkProject(
      dir,
      `import aiSdk from '@bosun/adapter-ai-sdk'
import { createOpenAI } from '@ai-sdk/openai'
const openai = createOpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-proj-secretsecretsecretsecret0123' })
export default { model: { adapter: aiSdk, options: { model: openai.chat('gpt-4.1-nano'), maxTokens: 256 } }, store: 'memory' }
`,
    )
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^model {4}gpt-4\.1-nano {2}\(provider openai\.chat, an AI SDK model object\)$/m)
    expect(result.stdout).toMatch(/^ {9}options: .*maxTokens: 256/m)
    expect(result.stdout).not.toMatch(/specificationVersion|supportedUrls|adapter's default|sk-proj/)
  })
})
