import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { fixture } from '../testing/config-fixtures.js'
import { loadConfig } from './load.js'
import { CONFIG_KEYS, configSchema, renderConfigSchema } from './schema.js'

const schemaFile = new URL('../../schema.json', import.meta.url)

describe('schema.json', () => {
  it('is current: it is what the root schema renders to', () => {
    const current = readFileSync(schemaFile, 'utf8')
    expect(current === renderConfigSchema(), 'packages/core/schema.json is stale: run pnpm -C packages/core generate:schema').toBe(true)
  })

  it('accepts every JSON and YAML config of the fixtures, as an editor validating with it would', async () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(schemaFile, 'utf8')))
    for (const name of ['json', 'yaml', 'yml', 'rc', 'rc-json', 'rc-yaml', 'package-json', 'nested']) {
      const { config } = await loadConfig({ cwd: fixture(`good/${name}`), validate: false })
      expect(validate(config), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
  })

  it('flags what the loader refuses, so the editor shows it too', async () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(schemaFile, 'utf8')))
    for (const name of ['unknown-key', 'model-not-object', 'plugins-not-array', 'wrong-types', 'plugin-entry-shape', 'max-parallel-zero']) {
      const { config } = await loadConfig({ cwd: fixture(`bad/${name}`), validate: false })
      expect(validate(config), name).toBe(false)
    }
  })

  it('offers the known names for completion', () => {
    const properties = configSchema['properties'] as Record<string, any>
    expect(properties['model'].properties.adapter.anyOf[0].examples).toEqual(['scripted', 'openai', 'anthropic'])
    expect(properties['store'].anyOf[0].examples).toEqual(['memory', 'store-jsonl', 'store-sqlite', 'store-postgres'])
    expect(properties['plugins'].items.anyOf[0].examples).toEqual(['retry', 'rate-limit', 'step-limit', 'content-filter', 'compaction', 'subagents'])
    expect(CONFIG_KEYS).toEqual(['$schema', 'model', 'store', 'system', 'plugins', 'tools', 'maxParallelTools', 'logPages'])
  })
})
