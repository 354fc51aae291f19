// Smoke runs of the peer benchmark harness, so that it cannot rot: every figure's code path (the
// full run, each `--only` part, `--long`) at tiny sizes, one round, including the markdown it
// would write. Asserts only that each cell is a result or a stated reason, and that a smoke run
// writes nothing; benchmarks assert no timing. The real run is `pnpm bench` (not part of the tests).
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, test } from 'vitest'

const here = import.meta.dirname
const docPath = join(here, '../docs/benchmarks.md')
const resultsPath = join(here, 'results.json')
const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined)

type Cell = { ok?: boolean; wall?: number; reason?: string; long?: boolean } & Record<string, unknown>
type Table = Record<string, Record<string, Cell>>
interface Output {
  peers?: { fig1: Record<string, Cell>; fig2: Table; fig3: Table; fig3b: Table }
  fig4?: { runs: Table; concurrency: Table }
  fig5?: { runs: Table }
  fig6?: { loaded: Record<string, Cell & { perSession?: { heapUsed: number } }> }
  fig7?: { runs: Table }
  long?: { fig5: Record<string, Cell>; fig7: Record<string, Cell> }
  markdown: string
}

/** Runs run.mjs with `--smoke`; checks that docs/benchmarks.md and results.json are untouched. */
async function smoke(args: string[], env: Record<string, string> = {}): Promise<Output> {
  const before = [read(docPath), read(resultsPath)]
  // No time limit: a smoke run ends by itself, and on a busy machine it takes what it takes.
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'run.mjs'), ...args, '--smoke'], { cwd: here, env: { ...process.env, ...env } })
  expect([read(docPath), read(resultsPath)], 'a smoke run wrote to docs/benchmarks.md or results.json').toEqual(before)
  return JSON.parse(stdout.trim().split('\n').pop()!) as Output
}

const cells = (table: Table) => Object.entries(table).flatMap(([size, row]) => Object.entries(row).map(([id, r]) => [`${size} ${id}`, r] as const))
function expectResultOrReason(name: string, list: ReadonlyArray<readonly [string, Cell]>, count: number) {
  expect(list.length, name).toBe(count)
  for (const [id, r] of list) {
    const ok = r.ok === true || (typeof r.wall === 'number' && r.wall > 0) || (typeof r.reason === 'string' && r.reason.length > 0)
    expect(ok, `${name} ${id}: ${JSON.stringify(r)}`).toBe(true)
    // A peer may be unable to run a figure (the reason says why); Bosun must run every one of its
    // cells: an error of Bosun's own shown as a "reason" would hide a bug.
    if (/\bbosun/i.test(id) && r.long !== true) expect(r.reason, `${name} ${id}: ${JSON.stringify(r)}`).toBeUndefined()
  }
}
const region = (doc: string, name: string) => new RegExp(`<!-- peers-${name}:start -->[\\s\\S]*?<!-- peers-${name}:end -->`).exec(doc)?.[0]
const REGIONS = ['durable', 'resume', 'memory', 'concurrency']

// Each test waits for its run to end (`timeout: 0`): a fixed limit here failed on a loaded 2-core
// machine while nothing was wrong.
describe.sequential('benchmarks/run.mjs --smoke', { timeout: 0 }, () => {
  test('the full run: figures 1–7, every cell a result or a stated reason, the whole peers section', async () => {
    const out = await smoke([])
    expectResultOrReason('fig1', Object.entries(out.peers!.fig1), 8)
    expectResultOrReason('fig2', cells(out.peers!.fig2), 4)
    expectResultOrReason('fig3', cells(out.peers!.fig3), 4)
    expectResultOrReason('fig3b', cells(out.peers!.fig3b), 3) // paced: Bosun, pi-agent-core, the AI SDK
    expectResultOrReason('fig4', cells(out.fig4!.runs), 3)
    expectResultOrReason('fig4b', cells(out.fig4!.concurrency), 3) // memory, JSONL, SQLite: N sessions in one store
    expectResultOrReason('fig5', cells(out.fig5!.runs), 6)
    expectResultOrReason('fig6', Object.entries(out.fig6!.loaded), 4)
    for (const [id, r] of Object.entries(out.fig6!.loaded)) if (r.ok) expect(typeof r.perSession?.heapUsed, id).toBe('number')
    expectResultOrReason('fig7', cells(out.fig7!.runs), 8)
    // The largest size's slow cells are left to --long, and say so.
    const deferred = [...cells(out.fig5!.runs), ...cells(out.fig7!.runs)].filter(([, r]) => r.long)
    expect(deferred.map(([id]) => id).sort()).toEqual(['10 ai', '10 lg-memory', '1000 bosun-jsonl', '1000 bosun-sqlite', '1000 lg-sqlite'])
    for (const [, r] of deferred) expect(r.reason).toContain('node benchmarks/run.mjs --long')
    const md = out.markdown
    for (const name of REGIONS) expect(region(md, name), name).toBeDefined()
    for (const h of ['Figure 1 —', 'Figure 2 —', 'Figure 3 —', 'Figure 3b —', 'Figure 4 —', 'Figure 4b —', 'Figure 5 —', 'Figure 6 —', 'Figure 7 —', '### Goals']) expect(md).toContain(h)
    expect(md).toContain('Command: `node benchmarks/run.mjs` (all seven figures')
    for (const stale of ['Where Bosun loses', 'Core was not edited', 'Not implemented:']) expect(md).not.toContain(stale)
  })

  test('--only peers: figures 1–3, the regions of figures 4–7 kept as they are in the doc', async () => {
    const out = await smoke(['--only', 'peers'])
    expect(Object.keys(out).sort()).toEqual(['markdown', 'peers'])
    expectResultOrReason('fig1', Object.entries(out.peers!.fig1), 8)
    expect(out.markdown).toContain('Command: `node benchmarks/run.mjs --only peers` (figures 1–3 only')
    const doc = readFileSync(docPath, 'utf8')
    for (const name of REGIONS) expect(region(out.markdown, name), name).toBe(region(doc, name))
  })

  test.each([
    ['durable', 'fig4', 3],
    ['resume', 'fig5', 6],
    ['concurrency', 'fig7', 8],
  ] as const)('--only %s: its figure alone, only its region rewritten', async (name, key, count) => {
    const out = await smoke(['--only', name])
    expect(Object.keys(out).sort()).toEqual(['markdown', key].sort())
    expectResultOrReason(key, cells(out[key]!.runs), count)
    const doc = readFileSync(docPath, 'utf8')
    expect(region(out.markdown, name)).toContain(`Command: \`node benchmarks/run.mjs --only ${name}\``)
    for (const other of REGIONS.filter((r) => r !== name)) expect(region(out.markdown, other), other).toBe(region(doc, other))
  })

  test('--only memory: figure 6 alone (loaded sessions at smoke size)', async () => {
    const out = await smoke(['--only', 'memory'])
    expectResultOrReason('fig6', Object.entries(out.fig6!.loaded), 4)
    expect(region(out.markdown, 'memory')).toContain('Command: `node benchmarks/run.mjs --only memory`')
  })

  test('--long: the deferred cells measured, and shown in the regions of figures 5 and 7 with their date', async () => {
    const out = await smoke(['--long'])
    expectResultOrReason('long fig5', Object.entries(out.long!.fig5), 3)
    expectResultOrReason('long fig7', Object.entries(out.long!.fig7), 2)
    expect(region(out.markdown, 'resume')).toContain('LangGraph SqliteSaver `getState` (from the `--long` run of')
    expect(region(out.markdown, 'resume')).toContain('Bosun JSONL `store.open` (from the `--long` run of')
    expect(region(out.markdown, 'concurrency')).toContain('AI SDK streamText (from the `--long` run of')
  })

  test('--long: a child stopped at the time limit states where it stopped', async () => {
    const out = await smoke(['--long'], { BENCH_LONG_TIMEOUT_S: '0.5' })
    const stopped = Object.entries({ ...out.long!.fig5, ...out.long!.fig7 }).filter(([, r]) => !r.ok)
    expect(stopped.length).toBeGreaterThan(0)
    for (const [id, r] of stopped) expect(r.reason, id).toMatch(/^stopped at the 0\.5 s time limit/)
  })
})

describe('benchmarks/run.mjs: the command line is read before anything runs', { timeout: 0 }, () => {
  /**
   * Runs run.mjs with no PATH: had it gone on to build (`npx tsc`), it would have failed with exit
   * 1; exit 0 or 2 shows it stopped before. docs/benchmarks.md and results.json are untouched.
   */
  async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const before = [read(docPath), read(resultsPath)]
    const result = await promisify(execFile)(process.execPath, [join(here, 'run.mjs'), ...args], { cwd: here, env: { PATH: '' } })
      .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
      .catch((error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }))
    expect([read(docPath), read(resultsPath)], 'run.mjs wrote to docs/benchmarks.md or results.json').toEqual(before)
    return result
  }

  test.each([['--help'], ['-h'], ['--only', 'durable', '--help']])('%s prints the usage and exits 0', async (...args) => {
    const { code, stdout } = await run(args)
    expect(code).toBe(0)
    expect(stdout).toMatch(/^usage: node benchmarks\/run\.mjs/)
    expect(stdout).toContain('--only <part>')
  })

  test.each([['--bogus'], ['help'], ['--only', 'nope'], ['--only'], ['--only', 'durable', '--long'], ['--smoke', 'extra']])(
    '%s is refused with the usage and exit 2',
    async (...args) => {
      const { code, stdout, stderr } = await run(args)
      expect(code).toBe(2)
      expect(stdout).toBe('')
      expect(stderr).toMatch(/^run\.mjs: /)
      expect(stderr).toContain('usage: node benchmarks/run.mjs')
    },
  )
})
