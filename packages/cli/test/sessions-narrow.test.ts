// `bosun sessions list` on a 60-column terminal (review): the columns before the first prompt take
// 71 columns with generated ids, so every row was wider than the terminal, which wrapped it onto
// the next line — ids, times and prompts interleaved. Now the rows fit: the ids whole (to be
// copied), the prompt cut with an ellipsis, the columns that matter least left out or shortened.
// Piped, the output is the same at any width: every column, every time whole.
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'
import { runInPty, type PtyResult } from './pty.js'

beforeAll(requireBuild)

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`
const TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/
const PROMPT = 'Summarise the release notes of the last three versions for the changelog'

describe.concurrent('bosun sessions list fits the terminal', () => {
  it.for([
    // A generated id (20 characters) and a longer one of the user's own.
    [60, ['20261204-092735-wzgd', 'nightly-build-check']],
    [60, ['a-session-id-of-thirty-chars-x']],
    [40, ['20261204-092735-wzgd']],
  ] as const)('%i columns, ids %j: one line a row, ids whole, the prompt cut with …', async ([columns, ids], { dir, expect }) => {
    for (const id of ids) expect((await bosun(['run', '--session', id, PROMPT], { cwd: dir })).code).toBe(0)
    const result = await runInPty(['sessions', 'list'], [{ wait_exit: true }], { cwd: dir, cols: columns })
    expect(result.ok, explain(result)).toBe(true)
    expect(result.exit_code).toBe(0)
    const rows = result.screen.split('\n').filter((row) => row.trim() !== '')
    expect(rows[0], explain(result)).toMatch(/^ID\s.*\sFIRST PROMPT$/)
    expect(rows, explain(result)).toHaveLength(1 + ids.length)
    // A row as wide as the terminal is one the terminal may have wrapped (the table keeps one column free).
    expect(rows.filter((row) => row.length >= columns), explain(result)).toEqual([])
    for (const [index, id] of ids.entries()) expect(rows[1 + index], explain(result)).toMatch(new RegExp(`^${id}\\s.*\\sSumm\\S*.*…$`))
  })

  it('60 columns with a fork: its parent stays (ids whole), the other columns give way first', async ({ dir, expect }) => {
    expect((await bosun(['run', '--session', '20261204-092735-wzgd', PROMPT], { cwd: dir })).code).toBe(0)
    expect((await bosun(['sessions', 'fork', '20261204-092735-wzgd', '--id', '20261204-093012-kq7p'], { cwd: dir })).code).toBe(0)
    const result = await runInPty(['sessions', 'list'], [{ wait_exit: true }], { cwd: dir, cols: 60 })
    expect(result.ok, explain(result)).toBe(true)
    const rows = result.screen.split('\n').filter((row) => row.trim() !== '')
    expect(rows[0], explain(result)).toMatch(/^ID\s+FORKED FROM\s.*\sFIRST PROMPT$/)
    expect(rows.filter((row) => row.length >= 60), explain(result)).toEqual([])
    expect(rows[2], explain(result)).toMatch(/^20261204-093012-kq7p\s+20261204-092735-wzgd\s.*\sSumm\S*.*…$/)
  })

  it('a wide terminal shows every column; a pipe shows every column, whatever COLUMNS says', async ({ dir, expect }) => {
    expect((await bosun(['run', '--session', '20261204-092735-wzgd', PROMPT], { cwd: dir })).code).toBe(0)
    const [wide, piped] = await Promise.all([
      runInPty(['sessions', 'list'], [{ wait_exit: true }], { cwd: dir, cols: 160 }),
      bosun(['sessions', 'list'], { cwd: dir, env: { COLUMNS: '40' } }),
    ])
    expect(wide.screen, explain(wide)).toMatch(/^ID\s+CREATED\s+TURNS\s+LAST ACTIVITY\s+FIRST PROMPT\n/)
    expect(wide.screen).toContain(PROMPT)
    expect(piped.code).toBe(0)
    const [header, row] = piped.stdout.split('\n')
    expect(header).toMatch(/^ID\s+CREATED\s+TURNS\s+LAST ACTIVITY\s+FIRST PROMPT$/)
    expect(row).toMatch(new RegExp(`^20261204-092735-wzgd\\s+${TIME.source}\\s+1\\s+${TIME.source}\\s+${PROMPT.slice(0, 20)}`))
  })

  // A turn's end can take 21 columns (`blocked by rate-limit`): at 59 the rows of `show` were 60
  // wide, the prompt given 10 columns where 9 were left, so the terminal wrapped them.
  it.for([59, 44] as const)('sessions show at %i columns: the turns\' rows fit, the prompt cut with …', async (columns, { dir, expect }) => {
    await writeProject(dir, { plugins: [['rate-limit', { turnsPerMinute: 1, windowMs: 3_600_000 }]] })
    expect((await bosun(['run', '--session', 'limited', PROMPT], { cwd: dir })).code).toBe(0)
    expect((await bosun(['run', '--session', 'limited', PROMPT], { cwd: dir })).code).toBe(3)
    const result = await runInPty(['sessions', 'show', 'limited'], [{ wait_exit: true }], { cwd: dir, cols: columns })
    expect(result.ok, explain(result)).toBe(true)
    const rows = result.screen.split('\n')
    const header = rows.findIndex((row) => row.startsWith('TURN'))
    expect(rows[header], explain(result)).toMatch(/^TURN\s+ENDED\s.*PROMPT$/)
    expect(rows[header + 2], explain(result)).toMatch(/^2\s+blocked by rate-limit\s.*\sSumm\S*.*…$/)
    expect(rows.slice(header, header + 3).filter((row) => row.length >= columns), explain(result)).toEqual([])
  })
})
