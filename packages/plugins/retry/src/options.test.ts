// The options' checks: every mistake is an options error naming its JSON path, from code and from
// a config file alike — `random` too, which only code can give (a function, and nothing else: a
// bigint or a symbol, which no config file can hold either, passed the schema's `not` any JSON type).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { BosunError, createAgent } from '@bosun/core'
import { loadConfig } from '@bosun/core/config'
import retry from './index.js'

const build = (options: unknown) => createAgent({ model: scripted(), plugins: [[retry, options]] })

describe('retry options', () => {
  it('accepts a random source from code', async () => {
    const agent = await build({ random: () => 0.5 })
    await agent.close()
  })

  it.each<[string, unknown]>([
    ['a number', 0.5],
    ['a string', 'Math.random'],
    ['null', null],
    ['an object', { seed: 1 }],
    ['a bigint', 5n],
    ['a symbol', Symbol('random')],
  ])('a random that is %s is PLUGIN_OPTIONS_INVALID naming $.random, not a setup failure', async (_, random) => {
    const error = (await build({ random }).catch((e: unknown) => e)) as BosunError
    expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
    expect(error.details).toMatchObject({ paths: '$.random' })
    expect(error.message).toContain('  - $.random: must be a function returning a number in [0, 1), given in code (found ')
  })

  it('a bigint where a number belongs is shown as the bigint it is', async () => {
    const error = (await build({ maxAttempts: 4n }).catch((e: unknown) => e)) as BosunError
    expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
    expect(error.message).toMatch(/\n {2}- \$\.maxAttempts: must be an integer \(found the bigint 4n\)$/)
  })

  it('is reported with the other options\' mistakes, in one error', async () => {
    const error = (await build({ maxAttempts: 0, random: 1 }).catch((e: unknown) => e)) as BosunError
    expect(error).toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', details: { paths: '$.maxAttempts,$.random' } })
  })

  it('a random in a config file is CONFIG_INVALID naming its path in the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bosun-retry-'))
    try {
      const plugin = fileURLToPath(new URL('./index.ts', import.meta.url))
      await writeFile(join(dir, 'bosun.config.json'), JSON.stringify({ plugins: [[plugin, { maxAttempts: 3, random: 0.25 }]] }))
      const error = (await loadConfig({ cwd: dir, env: {} }).catch((e: unknown) => e)) as BosunError
      expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
      expect(error.message).toContain('- $.plugins[0][1].random (plugin ')
      expect(error.message).toContain('): must be a function returning a number in [0, 1), given in code (found 0.25)')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
