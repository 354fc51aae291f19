// Each reference plugin's package.json declares the hooks it taps ("bosun": { "hooks": [...] }):
// `bosun plugins` shows that list without loading the plugin, so it must match what setup taps.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, type Plugin } from '@bosun/core'
import compaction from '@bosun/plugin-compaction'
import contentFilter from '@bosun/plugin-content-filter'
import rateLimit from '@bosun/plugin-rate-limit'
import retry from '@bosun/plugin-retry'

const require = createRequire(import.meta.url)

/** Options that switch every feature on, so that every hook the plugin can tap is tapped. */
const cases: [string, Plugin<never>, unknown][] = [
  ['@bosun/plugin-compaction', compaction as Plugin<never>, {}],
  ['@bosun/plugin-content-filter', contentFilter as Plugin<never>, { rules: [{ id: 'x', keywords: ['x'], action: 'redact', scope: 'both' }] }],
  ['@bosun/plugin-rate-limit', rateLimit as Plugin<never>, { turnsPerMinute: 10, onLimit: 'requeue' }],
  ['@bosun/plugin-retry', retry as Plugin<never>, {}],
]

it.each(cases)('%s declares exactly the hooks it taps', async (name, plugin, options) => {
  const manifest = JSON.parse(await readFile(require.resolve(`${name}/package.json`), 'utf8')) as { bosun: { hooks: string[] } }
  const agent = await createAgent({ model: scripted({ responses: [] }), plugins: [[plugin, options as never]] })
  const tapped = Object.values(agent.hooks as unknown as Record<string, { name: string; taps: { name: string }[] }>)
    .filter((hook) => hook.taps.some((tap) => tap.name === plugin.name))
    .map((hook) => hook.name)
  await agent.close()
  expect(tapped.sort()).toEqual([...manifest.bosun.hooks].sort())
})
