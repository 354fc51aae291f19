import { describe, expect, expectTypeOf, it } from 'vitest'
import { definePlugin } from '../plugin.js'
import { defineConfig } from './define-config.js'
import type { BosunConfig } from './types.js'

describe('defineConfig', () => {
  it('returns the config unchanged, typed as a BosunConfig', () => {
    const plugin = definePlugin({ name: 'noop', setup() {} })
    const config = defineConfig({
      model: { adapter: 'openai', options: { model: 'gpt-4o-mini', apiKeyEnv: 'OPENAI_API_KEY' } },
      store: ['store-jsonl', { dir: '.bosun/sessions' }],
      plugins: ['retry', ['rate-limit', { turnsPerMinute: 20 }], plugin, [plugin, {}], './my-plugin.ts'],
      tools: ['./tools/read-file.ts'],
      maxParallelTools: 4,
    })
    expect(config.plugins).toHaveLength(5)
    expectTypeOf(config).toEqualTypeOf<BosunConfig>()
  })

  it('rejects, at type level, a misspelt key and a value of the wrong type', () => {
    // @ts-expect-error "plugns" is not a config key
    defineConfig({ plugns: [] })
    // @ts-expect-error system is a string
    defineConfig({ system: 42 })
    // @ts-expect-error options go beside the adapter, in an object
    defineConfig({ model: { adapter: 'openai', options: 'fast' } })
  })
})
