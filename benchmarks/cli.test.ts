// run.mjs's command line without running it: which parts each selection measures and renders, the
// command a figure records, and how a stopped child is described. smoke.test.ts runs the selections
// end to end (each figure measured once in the file; the `--only` parts rendered from that run).
import { describe, expect, it } from 'vitest'
// @ts-expect-error -- plain .mjs modules of the benchmark harness, without type declarations
import { PART_NAMES, commandOf, parseArgs, selection } from './lib/cli.mjs'
// @ts-expect-error -- as above
import { failure } from './lib/children.mjs'

describe('benchmarks/run.mjs: what each selection measures and renders', () => {
  const figures = ['durable', 'resume', 'memory', 'concurrency']

  it('the full run measures every part once and renders the whole section', () => {
    expect(PART_NAMES).toEqual(['peers', ...figures])
    expect(selection(parseArgs([]))).toEqual({ measure: PART_NAMES, measureLong: false, section: true, main: true, regions: figures })
  })

  it.each(figures)('--only %s measures that part alone and renders only its region', (name) => {
    expect(selection(parseArgs(['--only', name]))).toEqual({ measure: [name], measureLong: false, section: false, main: false, regions: [name] })
    expect(selection(parseArgs([`--only=${name}`, '--smoke']))).toEqual(selection(parseArgs(['--only', name])))
  })

  it('--only peers measures figures 1–3 and renders the part above the regions', () => {
    expect(selection(parseArgs(['--only', 'peers']))).toEqual({ measure: ['peers'], measureLong: false, section: false, main: true, regions: [] })
  })

  it('--long measures its cells alone and renders the regions of figures 5 and 7', () => {
    expect(selection(parseArgs(['--long']))).toEqual({ measure: [], measureLong: true, section: false, main: false, regions: ['resume', 'concurrency'] })
  })

  it('--render measures nothing and renders the share of the run it is combined with', () => {
    for (const argv of [[], ['--only', 'peers'], ['--only', 'resume'], ['--long']]) {
      const { measure, measureLong, ...share } = selection(parseArgs([...argv, '--render']))
      expect([measure, measureLong], argv.join(' ')).toEqual([[], false])
      const { measure: _m, measureLong: _l, ...measured } = selection(parseArgs(argv))
      expect(share, argv.join(' ')).toEqual(measured)
    }
  })

  it('a figure records the command that measured it', () => {
    expect(commandOf(parseArgs([]))).toBe('node benchmarks/run.mjs')
    expect(commandOf(parseArgs(['--only', 'durable', '--smoke']))).toBe('node benchmarks/run.mjs --only durable')
    expect(commandOf(parseArgs(['--long']), { BENCH_ROUNDS: '2' })).toBe('BENCH_ROUNDS=2 node benchmarks/run.mjs --long')
  })

  it('reads --results in both forms, and refuses it without a file, twice, or with --quick', () => {
    expect(parseArgs(['--render', '--results', 'a.json']).results).toBe('a.json')
    expect(parseArgs(['--results=b.json', '--smoke']).results).toBe('b.json')
    expect(parseArgs(['--results']).error).toBe('--results needs a file')
    expect(parseArgs(['--results', 'a', '--results', 'b']).error).toBe('--results is given twice')
    expect(parseArgs(['--quick', '--results', 'a']).error).toMatch(/--quick/)
    expect(parseArgs(['--quick', '--render']).error).toMatch(/--quick/)
  })
})

describe('benchmarks/lib/children.mjs: a child that did not finish', () => {
  const progress = 'BENCH_PROGRESS {"phase":"writing the checkpoint","s":1.5,"heapMiB":1200,"heapLimitMiB":8192}\n'

  it('stopped at the time limit: says so, and where it was from its last progress line', () => {
    expect(failure({ killed: true, message: '' }, `noise\n${progress}`, 800, 500))
      .toBe('stopped at the 0.5 s time limit while writing the checkpoint (last reading at 1.5 s: heapUsed 1,200 MiB, heap limit 8,192 MiB)')
    expect(failure({ killed: true, message: '' }, '', 20, 10)).toBe('stopped at the 0.01 s time limit')
  })

  it('out of heap, or failed: says which', () => {
    expect(failure({ killed: false, message: 'x' }, `${progress}FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory`, 61_400, 1_800_000))
      .toMatch(/^ran out of heap after 61 s while writing the checkpoint/)
    expect(failure({ killed: false, message: 'Command failed: node\nmore' }, '', 5, 1000)).toBe('child failed: Command failed: node')
  })
})
