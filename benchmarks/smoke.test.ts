// Smoke runs of the peer benchmark harness, so that it cannot rot: every figure's code path (the
// full run, each `--only` part, `--long`) at tiny sizes, one round, including the markdown it
// would write. Asserts only that each cell is a result or a stated reason, and that a smoke run
// writes nothing; benchmarks assert no timing. The real run is `pnpm bench` (not part of the tests).
// Each figure is measured once in this file: the full run measures figures 1–7 and stores them in a
// results file, the `--only` parts and `--long`'s regions are rendered from it (`--render`,
// `--results`), and `--long` measures only its own cells. Which parts each selection measures is
// checked in cli.test.ts.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, test } from 'vitest'
// @ts-expect-error -- plain .mjs modules of the benchmark harness, without type declarations
import { commandOf } from './lib/cli.mjs'
// @ts-expect-error -- as above
import { peersMain } from './lib/report-peers.mjs'

const here = import.meta.dirname
const docPath = join(here, '../docs/benchmarks.md')
const resultsPath = join(here, 'results.json')
const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined)

type Cell = { ok?: boolean; wall?: number; reason?: string; long?: boolean } & Record<string, unknown>
type Table = Record<string, Record<string, Cell>>
type Run = { command: string; rounds: number }
interface Output {
  peers?: { fig1: Record<string, Cell>; fig2: Table; fig3: Table; fig3b: Table; run: Run; total?: { command: string }; versions?: string }
  fig4?: { runs: Table; concurrency: Table; run: Run }
  fig5?: { runs: Table; run: Run }
  fig6?: { loaded: Record<string, Cell & { perSession?: { heapUsed: number } }>; run: Run }
  fig7?: { runs: Table; run: Run }
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
/** The peers section, and its part above the regions (figures 1–3). */
const section = (doc: string) => doc.slice(doc.indexOf('<!-- peers:start -->'), doc.indexOf('<!-- peers:end -->'))
const main = (doc: string) => doc.slice(doc.indexOf('<!-- peers:start -->'), doc.indexOf('<!-- peers-durable:start -->'))

const work = mkdtempSync(join(tmpdir(), 'bench-smoke-test-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const resultsFile = join(work, 'results.json')
let full: Promise<Output> | undefined
/**
 * The file's one full smoke run (figures 1–7 measured once), its figures stored in `resultsFile`
 * as a real run stores them in results.json: the later tests render from it.
 */
function fullRun(): Promise<Output> {
  full ??= smoke([]).then((out) => {
    const { markdown: _, ...results } = out
    writeFileSync(resultsFile, JSON.stringify(results))
    return out
  })
  return full
}

// Each test waits for its run to end (`timeout: 0`): a fixed limit here failed on a loaded 2-core
// machine while nothing was wrong.
describe.sequential('benchmarks/run.mjs --smoke', { timeout: 0 }, () => {
  test('the full run: figures 1–7, every cell a result or a stated reason, the whole peers section', async () => {
    const out = await fullRun()
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
    // What --render needs to show the figures as measured: the whole run's command, the versions.
    expect(out.peers!.total?.command).toBe('node benchmarks/run.mjs')
    expect(md).toContain(`Versions: ${out.peers!.versions}.`)
    for (const name of ['fig4', 'fig5', 'fig6', 'fig7'] as const) expect(out[name]!.run).toMatchObject({ command: 'node benchmarks/run.mjs', rounds: 1 })
  })

  test('--render: the full run\'s section again from its results file, nothing measured', async () => {
    const measured = await fullRun()
    const out = await smoke(['--render', '--results', resultsFile])
    expect(Object.keys(out).sort()).toEqual(['fig4', 'fig5', 'fig6', 'fig7', 'markdown', 'peers'])
    expect(section(out.markdown)).toBe(section(measured.markdown))
  })

  test('--only peers: figures 1–3 (rendered from the full run), the regions of figures 4–7 kept as they are in the doc', async () => {
    const measured = await fullRun()
    const out = await smoke(['--only', 'peers', '--render', '--results', resultsFile])
    expect(Object.keys(out).sort()).toEqual(['markdown', 'peers'])
    expect(main(out.markdown)).toBe(main(measured.markdown))
    const doc = readFileSync(docPath, 'utf8')
    for (const name of REGIONS) expect(region(out.markdown, name), name).toBe(region(doc, name))
    // Figures 1–3 measured by `--only peers` (no whole-run total) name that command instead.
    const alone = { ...measured.peers, total: undefined, run: { ...measured.peers!.run, command: commandOf({ only: 'peers' }) } }
    expect(peersMain(alone)).toContain('Command: `node benchmarks/run.mjs --only peers` (figures 1–3 only')
  })

  test.each([
    ['durable', 'fig4'],
    ['resume', 'fig5'],
    ['memory', 'fig6'],
    ['concurrency', 'fig7'],
  ] as const)('--only %s: its figure alone (rendered from the full run), only its region rewritten', async (name, key) => {
    const measured = await fullRun()
    const out = await smoke(['--only', name, '--render', '--results', resultsFile])
    expect(Object.keys(out).sort()).toEqual(['markdown', key].sort())
    expect(out[key]).toEqual(measured[key])
    expect(region(out.markdown, name)).toBe(region(measured.markdown, name))
    const doc = readFileSync(docPath, 'utf8')
    expect(main(out.markdown)).toBe(main(doc))
    for (const other of REGIONS.filter((r) => r !== name)) expect(region(out.markdown, other), other).toBe(region(doc, other))
  })

  test('--long: only the deferred cells measured, shown in the regions of figures 5 and 7 with their date', async () => {
    await fullRun()
    const out = await smoke(['--long', '--results', resultsFile])
    expect(Object.keys(out).sort()).toEqual(['long', 'markdown'])
    expectResultOrReason('long fig5', Object.entries(out.long!.fig5), 3)
    expectResultOrReason('long fig7', Object.entries(out.long!.fig7), 2)
    expect(region(out.markdown, 'resume')).toContain('LangGraph SqliteSaver `getState` (from the `--long` run of')
    expect(region(out.markdown, 'resume')).toContain('Bosun JSONL `store.open` (from the `--long` run of')
    expect(region(out.markdown, 'concurrency')).toContain('AI SDK streamText (from the `--long` run of')
    const doc = readFileSync(docPath, 'utf8')
    for (const other of ['durable', 'memory']) expect(region(out.markdown, other), other).toBe(region(doc, other))
  })

  test('--long: a child stopped at the time limit (BENCH_LONG_TIMEOUT_S) says so', async () => {
    // 10 ms: every child is stopped before it measures anything (the cells were measured above);
    // the phase a stopped child had reached is checked in cli.test.ts.
    const out = await smoke(['--long'], { BENCH_LONG_TIMEOUT_S: '0.01' })
    const stopped = Object.entries({ ...out.long!.fig5, ...out.long!.fig7 })
    expect(stopped.map(([id]) => id).sort()).toEqual(['ai', 'bosun-jsonl', 'bosun-sqlite', 'lg-memory', 'lg-sqlite'])
    for (const [id, r] of stopped) expect(r.reason, id).toMatch(/^stopped at the 0\.01 s time limit/)
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

  test.each([['--bogus'], ['help'], ['--only', 'nope'], ['--only'], ['--only', 'durable', '--long'], ['--smoke', 'extra'], ['--results'], ['--render', '--quick']])(
    '%s is refused with the usage and exit 2',
    async (...args) => {
      const { code, stdout, stderr } = await run(args)
      expect(code).toBe(2)
      expect(stdout).toBe('')
      expect(stderr).toMatch(/^run\.mjs: /)
      expect(stderr).toContain('usage: node benchmarks/run.mjs')
    },
  )

  test.each([
    ['no results file', [], 'there is no'],
    ['a results file without figure 4, --only durable', ['--only', 'durable'], 'holds no figure 4 (`fig4`); measure it first: node benchmarks/run.mjs --only durable'],
    ['a results file without --long cells, --long', ['--long'], 'holds no --long cells; measure them first: node benchmarks/run.mjs --long'],
  ])('--render with %s: exit 1, saying what to measure', async (_what, argv, says) => {
    const file = join(work, argv.length ? 'empty.json' : 'absent.json')
    if (argv.length) writeFileSync(file, '{}')
    const { code, stdout, stderr } = await run([...argv, '--render', '--results', file])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/^run\.mjs: --render/)
    expect(stderr).toContain(says)
  })
})
