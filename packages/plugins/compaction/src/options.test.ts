import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { testPlugin } from '@bosun/testkit'
import { expectConfigLines, expectPluginCodeLines, type OptionsCase } from '../../../core/src/testing/options-lines.js'
import compaction from './index.js'

describe('options', () => {
  it.each([
    [{}],
    [{ contextWindow: 128_000 }],
    [{ contextWindow: 200_000, thresholdRatio: 1, retainRatio: 0 }],
    [{ thresholdRatio: 0.9, retainRatio: 0.5 }],
  ])('accepts %j', async (options) => {
    await expect(testPlugin(compaction, options)).resolves.toBeDefined()
  })

  it('accepts a summary model given in code', async () => {
    await expect(testPlugin(compaction, { model: { adapter: scripted() } })).resolves.toBeDefined()
  })

  it.each([
    [{ contextWindow: 0 }, '$.contextWindow'],
    [{ contextWindow: 1000.5 }, '$.contextWindow'],
    [{ thresholdRatio: 0 }, '$.thresholdRatio'],
    [{ thresholdRatio: 1.5 }, '$.thresholdRatio'],
    [{ retainRatio: -0.1 }, '$.retainRatio'],
    [{ retainRatio: 1 }, '$.retainRatio'],
    [{ model: 'openai' }, '$.model'],
    // From code a name cannot be resolved (a config file's is, before options reach the plugin).
    [{ model: { adapter: 'openai' } }, '$.model.adapter'],
    [{ model: { options: {} } }, '$.model.adapter'],
    [{ window: 1000 }, '$.window'],
  ])('refuses %j at startup, naming %s', async (options, path) => {
    await expect(testPlugin(compaction, options as never)).rejects.toMatchObject({
      code: 'PLUGIN_OPTIONS_INVALID',
      details: { paths: expect.stringContaining(path) },
    })
  })

  it('refuses a retainRatio that is not below thresholdRatio — either counted at its default — with one line, from code and from a config file', async () => {
    const cases: OptionsCase[] = [
      [{ thresholdRatio: 0.5, retainRatio: 0.5 }, '$.retainRatio: must be below thresholdRatio (0.5) (found 0.5)'],
      [{ retainRatio: 0.9 }, '$.retainRatio: must be below thresholdRatio (0.8 by default) (found 0.9)'],
      [{ thresholdRatio: 0.2 }, '$.thresholdRatio: must be above retainRatio (0.25 by default) (found 0.2)'],
    ]
    await expectPluginCodeLines(compaction, cases)
    await expectConfigLines(compaction, cases)
    await expect(testPlugin(compaction, { thresholdRatio: 0.3 })).resolves.toBeDefined()
    await expect(testPlugin(compaction, { retainRatio: 0.79 })).resolves.toBeDefined()
  })

  it('refuses a model object that is neither an adapter nor an adapter definition', async () => {
    await expect(testPlugin(compaction, { model: { adapter: { name: 'x' } as never } })).rejects.toMatchObject({
      code: 'PLUGIN_SETUP_FAILED',
      message: expect.stringContaining('a model entry\'s "adapter" must be a model adapter (with name and stream) or an adapter definition'),
    })
  })

  it('refuses options given with an adapter that is already created, as a config file\'s model does', async () => {
    await expect(testPlugin(compaction, { model: { adapter: scripted(), options: { responses: [] } } })).rejects.toMatchObject({
      code: 'PLUGIN_SETUP_FAILED',
      message: expect.stringContaining('"options" cannot be given to an adapter that is already created'),
    })
  })
})
