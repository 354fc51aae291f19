// Every option of createHost() is in docs/host.md's options table with its type, default and what
// it does, and the table names nothing createHost() refuses — the check the adapters', stores' and
// plugins' READMEs get (tests/docs/options.test.ts), on the schema createHost() validates with.
// The defaults the page states for the nested options — the `limits` paragraph's "`idleMs` (5
// min)" and the `cluster` row's "{ relayWaitMs: 5000, … }" — are the schema's `default`s, which are
// the constants the host applies.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { optionRows, problemsOf, type Schema } from '../../../tests/docs/option-tables.js'
import { hostOptionsSchema } from '../src/options.js'

const markdown = readFileSync(fileURLToPath(new URL('../../../docs/host.md', import.meta.url)), 'utf8')

it('every option of createHost() is in docs/host.md, and nothing else is', () => {
  expect(problemsOf(hostOptionsSchema as Schema, markdown, 'docs/host.md')).toEqual([])
})

/** A unit the page writes a default in, as a multiple of the schema's (bytes, milliseconds). */
const UNITS: Record<string, number> = { MiB: 1024 * 1024, KiB: 1024, ms: 1, s: 1000, min: 60_000, h: 3_600_000 }

/**
 * The defaults docs/host.md states for nested options, by path (`limits.idleMs`): the paragraph
 * that begins "`limits`:" writes each as "`name` (value unit…", the `cluster` row's default cell
 * as "{ name: value, … }".
 */
function statedDefaults(page: string): Map<string, number> {
  const stated = new Map<string, number>()
  const paragraph = /^`limits`:[\s\S]*?(?:\n\n|(?![\s\S]))/m.exec(page)?.[0] ?? ''
  for (const [, name, value, unit] of paragraph.matchAll(/`(\w+)` \((\d[\d,_]*)\s*(MiB|KiB|ms|s|min|h)?\b/g)) {
    stated.set(`limits.${name}`, Number(value!.replace(/[,_]/g, '')) * (unit === undefined ? 1 : UNITS[unit]!))
  }
  const cluster = optionRows(page).rows.find((row) => row.name === 'cluster')?.defaultCell ?? ''
  for (const [, name, value] of cluster.matchAll(/(\w+): (\d+)/g)) stated.set(`cluster.${name}`, Number(value))
  return stated
}

/** The `default` the schema declares for each nested option, by path. */
function schemaDefaults(): Map<string, unknown> {
  const declared = new Map<string, unknown>()
  for (const parent of ['limits', 'cluster']) {
    const properties = ((hostOptionsSchema.properties as Schema)[parent] as Schema).properties as Record<string, Schema>
    for (const [name, sub] of Object.entries(properties)) if ('default' in sub) declared.set(`${parent}.${name}`, sub.default)
  }
  return declared
}

describe('the defaults docs/host.md states for limits and cluster', () => {
  it('reads them from the page', () => {
    expect([...statedDefaults(markdown).keys()].sort()).toEqual([
      'cluster.pollIntervalMs', 'cluster.relayRunMs', 'cluster.relayWaitMs', 'cluster.takeoverConcurrency',
      'limits.bodyBytes', 'limits.idleMs', 'limits.keepAliveMs', 'limits.openTimeoutMs', 'limits.pageSize', 'limits.spawnWaitMs', 'limits.streamBatch', 'limits.streamStallMs', 'limits.streams', 'limits.streamsPerClient',
    ])
  })

  it('are the schema’s defaults, each stated', () => {
    const stated = statedDefaults(markdown)
    const declared = schemaDefaults()
    const problems: string[] = []
    for (const [path, value] of declared) if (stated.get(path) !== value) problems.push(`${path}: the schema's default is ${JSON.stringify(value)}, docs/host.md says ${stated.get(path) ?? 'nothing'}`)
    for (const [path, value] of stated) if (!declared.has(path)) problems.push(`${path}: docs/host.md says ${value}, the schema declares no default`)
    expect(problems).toEqual([])
  })
})
