import { describe, expect, it } from 'vitest'
// @ts-expect-error -- a plain .mjs module of the benchmark harness, without type declarations
import { lostHeadings, withSection } from './lib/report-common.mjs'

describe('benchmarks/run.mjs rewriting docs/benchmarks.md', () => {
  const doc = [
    '# Benchmarks', '', '## Mine', 'hand-written', '',
    '<!-- peers:start -->', '## Peers (`benchmarks/`)', 'old figures', '', '## Failover', 'hand-written, misplaced', '<!-- peers:end -->', '',
    '## After', 'hand-written',
  ].join('\n')

  it('names a hand-written section inside the generated region that a rewrite would delete', () => {
    const next = withSection(doc, '## Peers (`benchmarks/`)\nnew figures', {})
    expect(next).toContain('new figures')
    expect(lostHeadings(doc, next)).toEqual(['## Failover'])
  })

  it('finds nothing lost when every hand-written section is outside the region', () => {
    const tidy = doc.replace('## Failover\nhand-written, misplaced\n', '')
    expect(lostHeadings(tidy, withSection(tidy, '## Peers (`benchmarks/`)\nnew figures', {}))).toEqual([])
  })
})
