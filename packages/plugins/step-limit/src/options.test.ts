import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '@bosun/core'
import stepLimit, { type Options } from './index.js'

const build = (options: unknown) => createAgent({ model: scripted(), plugins: [[stepLimit, options]] })

describe('step-limit options', () => {
  it.each<[string, Options]>([
    ['none (the default limit)', {}],
    ['a limit of one step', { maxSteps: 1 }],
    ['a large limit', { maxSteps: 10_000 }],
  ])('accepts %s', async (_, options) => {
    const agent = await build(options)
    await agent.close()
  })

  it('accepts the plugin named without options', async () => {
    const agent = await createAgent({ model: scripted(), plugins: [stepLimit] })
    await agent.close()
  })

  it.each<[string, unknown, string]>([
    ['a zero limit', { maxSteps: 0 }, '$.maxSteps'],
    ['a negative limit', { maxSteps: -1 }, '$.maxSteps'],
    ['a fractional limit', { maxSteps: 2.5 }, '$.maxSteps'],
    ['a string limit', { maxSteps: '25' }, '$.maxSteps'],
    ['a misspelt option', { max_steps: 25 }, '$.max_steps'],
    ['options that are not an object', 25, '$'],
  ])('refuses %s with PLUGIN_OPTIONS_INVALID naming the path', async (_, options, paths) => {
    await expect(build(options)).rejects.toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', details: { paths } })
  })

  it('says what was expected', async () => {
    await expect(build({ maxSteps: 0 })).rejects.toThrow(/plugin "step-limit" \(plugins\[0\]\):\n {2}- \$\.maxSteps: must be >= 1 \(found 0\)/)
  })
})
