// Bosun's own adapters and stores declared no `@bosun/core` range (they depend on the core
// directly, so they have no peer range), and `bosun plugins info` showed "(no range declared)" for
// them — beside a range for every bundled plugin. Their manifest's `bosun.core` declares it. It
// must be `^<the version they ship at>` (the packages are released together): a range left behind
// by a release would have the loader refuse Bosun's own adapters and stores.
import { readFileSync } from 'node:fs'
import { CORE_VERSION, coreSatisfies } from '@bosun/core/config'
import { describe, expect, it } from 'vitest'
import { bosunManifest } from './manifest.js'

const root = new URL('../../../../', import.meta.url)
const manifestOf = (folder: string) => bosunManifest(JSON.parse(readFileSync(new URL(`${folder}/package.json`, root), 'utf8')) as { name: string; version: string })

describe.each(['adapters/scripted', 'adapters/openai', 'adapters/anthropic', 'adapters/ai-sdk', 'plugins/store-jsonl', 'plugins/store-sqlite', 'plugins/store-postgres'])('packages/%s', (folder) => {
  it('declares its @bosun/core range, the version it ships at, which the running core satisfies', () => {
    const manifest = manifestOf(`packages/${folder}`)
    expect(manifest.coreRange, `"bosun": { "core": "^${manifest.version}" } in ${manifest.name}'s package.json`).toBe(`^${manifest.version}`)
    expect(coreSatisfies(manifest.coreRange!), `the running @bosun/core ${CORE_VERSION}`).toBe(true)
  })
})

it('a bundled plugin keeps its range as its @bosun/core peer range', () => {
  expect(manifestOf('packages/plugins/retry').coreRange).toBe(`^${manifestOf('packages/plugins/retry').version}`)
})
