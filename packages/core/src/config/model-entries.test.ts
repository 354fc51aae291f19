import { beforeAll, describe, expect, it } from 'vitest'
import type { Agent } from '../loop/agent.js'
import { buildFixturePackages, configMessage, fixture } from '../testing/config-fixtures.js'
import { createAgentFromConfig } from './create.js'
import { loadConfig } from './load.js'
import { validateConfig } from './validate.js'

// A plugin option its schema marks `"x-bosun-model": true` is a model entry: a config file names
// its adapter like the top-level `model`, and the loader resolves and checks it the same way.
beforeAll(buildFixturePackages, 120_000)

/** The system prompt of the first request, and the answer, of one follow-up. */
async function firstRequest(agent: Agent): Promise<{ system: unknown; answer: unknown }> {
  const systems: unknown[] = []
  agent.hooks.prepareCall.tap({ name: 'probe', stage: 1000 }, (request) => {
    systems.push(request.system)
    return request
  })
  agent.followup('hi')
  await agent.whenIdle()
  const answer = agent.session.events.find((event) => event.type === 'assistant/message')?.data as { message: { content: { text: string }[] } }
  return { system: systems[0], answer: answer.message.content[0]?.text }
}

describe('model entries in plugin options', () => {
  it('a JSON config names the helper model\'s adapter with options, and the plugin gets that adapter', async () => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/model-entry-json') }))
    expect(await firstRequest(agent)).toEqual({ system: 'You were briefed by the helper.', answer: 'the main model answers' })
    await agent.close()
  })

  it('a TS config may also give an adapter definition with options, or a ready adapter', async () => {
    const agent = await createAgentFromConfig(await loadConfig({ cwd: fixture('good/model-entry-ts') }))
    expect(await firstRequest(agent)).toEqual({ system: 'Briefed in TS. [judges: scripted, scripted]', answer: 'the main model answers' })
    await agent.close()
  })

  it('the plugin is given the adapter\'s definition with its options; the loaded config is left as written', async () => {
    const loaded = await loadConfig({ cwd: fixture('good/model-entry-json'), validate: false })
    const resolved = await validateConfig(loaded)
    const [, options] = resolved.plugins[0] as [unknown, { model: { adapter: { kind: string; name: string }; options: unknown } }]
    expect(options.model).toMatchObject({ adapter: { kind: 'bosun-adapter', name: 'scripted' }, options: { responses: [{ text: 'You were briefed by the helper.' }] } })
    expect((loaded.config.plugins![0] as [string, { model: { adapter: unknown } }])[1].model.adapter).toBe('scripted')
  })

  it('a broken entry is reported at its own path, as the config\'s model would be: name, shape, options, secrets', async () => {
    expect(await configMessage(loadConfig({ cwd: fixture('bad/model-entry'), env: {} }))).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/model-entry/bosun.config.yaml:
        - $.plugins[0][1].model.adapter (adapter "nope"): cannot be found: tried @bosun/adapter-nope, then bosun-adapter-nope (resolving from <fixtures>/bad/model-entry). It is not one of Bosun's adapters, and no installed package provides it. Check the spelling; a third-party adapter is installed by its full package name (bosun-adapter-<name> or @scope/bosun-adapter-<name>), then named here. Known adapters: ai-sdk, anthropic, openai, scripted.
        - $.plugins[1][1].model.options.apiKey (plugin "../../good/model-entry-json/helper-model.ts"): a literal secret in a config file is refused (it would end up in version control and logs). Put it in an environment variable and name it: "apiKeyEnv": "MY_API_KEY".
        - $.plugins[1][1].model.options.tokenEnv (plugin "../../good/model-entry-json/helper-model.ts"): environment variable "BOSUN_FIXTURE_UNSET_TOKEN" is not set. Set it where bosun runs (export BOSUN_FIXTURE_UNSET_TOKEN=…), or name another variable.
        - $.plugins[1][1].model.options.recrd (adapter "scripted"): unknown key "recrd" — did you mean "record"?
        - $.plugins[1][1].model.options.tokenEnv (adapter "scripted"): unknown key "tokenEnv"; the known keys are responses, record.
        - $.plugins[1][1].model.options.responses[0].chunkSize (adapter "scripted"): must be >= 1 (found 0)
        - $.plugins[2][1].model: must be an object { "adapter": "scripted", "options"?: {…} } (found "scripted")
        - $.plugins[3][1].model.option: unknown key "option" — did you mean "options"?
        - $.plugins[3][1].judges[0].adapter (adapter "nope-judge"): cannot be found: tried @bosun/adapter-nope-judge, then bosun-adapter-nope-judge (resolving from <fixtures>/bad/model-entry). It is not one of Bosun's adapters, and no installed package provides it. Check the spelling; a third-party adapter is installed by its full package name (bosun-adapter-<name> or @scope/bosun-adapter-<name>), then named here. Known adapters: ai-sdk, anthropic, openai, scripted."
    `)
  })
})
