import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { BosunError, isEvent, messageText } from '@bosun/core'
import { createAgentFromConfig, loadConfig } from '@bosun/core/config'
// The config loader imports what a config names the way an application does (built packages):
// the same build step as core's own config tests, shared so that two never write dist/ at once.
import { buildFixturePackages } from '../../../core/src/testing/config-fixtures.js'

beforeAll(buildFixturePackages, 120_000)

const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url))
const long = (label: string) => `${label}: ${'lorem ipsum '.repeat(8)}`.trim()

describe('the summariser chosen in a config file', () => {
  it.each([
    ['json', 'Written by the summariser the JSON config names.'],
    ['ts', 'Written by the summariser the TS config names.'],
  ])('a %s config names the scripted adapter with options: it writes the summary, the agent\'s model answers', async (name, summary) => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: `${fixtures}/${name}` }))
    for (const question of ['question one', 'question two', 'question three']) {
      agent.followup(long(question))
      await agent.whenIdle()
    }
    const written = agent.session.events.filter((event) => isEvent(event, 'compaction/summary'))
    expect(written.map((event) => (event.data as { summary: string }).summary)).toEqual([expect.stringMatching(new RegExp(`${summary}$`))])
    const answers = agent.session.events.flatMap((event) => (isEvent(event, 'assistant/message') ? [messageText(event.data.message)] : []))
    expect(answers).toEqual([long('answer one'), long('answer two'), 'three done'])
    await agent.close()
  })

  it('a bad summariser entry is reported at plugins[i][1].model…, checked like the config\'s model', async () => {
    const error = await loadConfig({ cwd: `${fixtures}/bad`, env: {} }).catch((caught: unknown) => caught)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as BosunError).message).not.toContain('SECRET')
    expect((error as BosunError).message.split(fixtures).join('<fixtures>')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/bosun.config.yaml:
        - $.plugins[0][1].model.adapter (adapter "nope"): cannot be found: tried @bosun/adapter-nope, then bosun-adapter-nope (resolving from <fixtures>/bad). It is not one of Bosun's adapters, and no installed package provides it. Check the spelling; a third-party adapter is installed by its full package name (bosun-adapter-<name> or @scope/bosun-adapter-<name>), then named here. Known adapters: ai-sdk, anthropic, openai, scripted.
        - $.plugins[1][1].model.options.recrd (adapter "scripted"): unknown key "recrd" — did you mean "record"?
        - $.plugins[1][1].model.options.responses[0].chunkSize (adapter "scripted"): must be >= 1 (found 0)
        - $.plugins[2][1].model.options.apiKey (plugin "../../../src/index.ts"): a literal secret in a config file is refused (it would end up in version control and logs). Put it in an environment variable and name it: "apiKeyEnv": "MY_API_KEY".
        - $.plugins[3][1].model: must be an object { "adapter": "scripted", "options"?: {…} } (found "openai")"
    `)
  })
})
