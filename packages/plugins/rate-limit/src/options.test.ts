import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '@bosun/core'
import rateLimit, { type Options } from './index.js'

const build = (options: unknown) => createAgent({ model: scripted(), plugins: [[rateLimit, options]] })

describe('rate-limit options', () => {
  it.each<[string, Options]>([
    ['turns only', { turnsPerMinute: 20 }],
    ['steps only', { stepsPerMinute: 100 }],
    ['everything', { turnsPerMinute: 20, stepsPerMinute: 100, burst: 5, per: 'source', onLimit: 'delay', windowMs: 1000, sourceKey: 'tenant' }],
    ['requeue', { turnsPerMinute: 1, onLimit: 'requeue' }],
    // No upper bound: a wait past a timer's longest (24.8 days) is taken in steps (sleep.test.ts, requeue.test.ts).
    ['a window of a month, delayed', { turnsPerMinute: 100, windowMs: 30 * 24 * 3_600_000, onLimit: 'delay' }],
  ])('accepts %s', async (_, options) => {
    const agent = await build(options)
    await agent.close()
  })

  it.each<[string, unknown, string]>([
    ['no limit at all', {}, '$'],
    ['a zero limit', { turnsPerMinute: 0 }, '$.turnsPerMinute'],
    ['a fractional limit', { stepsPerMinute: 1.5 }, '$.stepsPerMinute'],
    ['a string limit', { turnsPerMinute: '20' }, '$.turnsPerMinute'],
    ['an unknown onLimit', { turnsPerMinute: 1, onLimit: 'drop' }, '$.onLimit'],
    ['an unknown per', { turnsPerMinute: 1, per: 'user' }, '$.per'],
    ['a zero burst', { turnsPerMinute: 1, burst: 0 }, '$.burst'],
    ['a zero window', { turnsPerMinute: 1, windowMs: 0 }, '$.windowMs'],
    ['an empty sourceKey', { turnsPerMinute: 1, sourceKey: '' }, '$.sourceKey'],
    ['a misspelt option', { turnsPerMin: 20, turnsPerMinute: 1 }, '$.turnsPerMin'],
  ])('refuses %s with PLUGIN_OPTIONS_INVALID naming the path', async (_, options, paths) => {
    await expect(build(options)).rejects.toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', details: { paths } })
  })

  it('says once that one of the two limits is needed, not that both are required', async () => {
    const error = (await build({ turnsPerMinut: 5 }).then(() => undefined, (e: unknown) => e)) as Error
    expect(error.message).toContain('- $: must be an object with turnsPerMinute or stepsPerMinute (at least one) (found an object)')
    expect(error.message).toContain('did you mean "turnsPerMinute"?')
    expect(error.message).not.toContain('is required')
  })

  it('says what was expected', async () => {
    await expect(build({ turnsPerMinute: 1, onLimit: 'drop' })).rejects.toThrow(
      /plugin "rate-limit" \(plugins\[0\]\):\n {2}- \$\.onLimit: must be one of "reject", "delay", "requeue" \(found "drop"\)/,
    )
  })
})
