// `bosun run`'s error on a narrow terminal: the line `error SERVER: …` was left to the terminal,
// which cut it mid-word and ran the rest on at the left edge (a859576 wrapped `bosun log` so). On a
// terminal it is word-wrapped, its rows after the first indented under it; piped, it stays whole.
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'
import { runInPty, type PtyResult } from './pty.js'

beforeAll(requireBuild)

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`
const COLUMNS = 60
const MESSAGE = 'The upstream model server is overloaded right now and refused the connection pooling request; try again in a few minutes'

describe.concurrent('bosun run on a narrow terminal', () => {
  it('word-wraps the error line, indented under it; a pipe gets it whole', async ({ dir, expect }) => {
    await writeProject(dir, { model: { adapter: 'scripted', options: { responses: [{ error: { status: 503, message: MESSAGE } }, { error: { status: 503, message: MESSAGE } }] } } })
    const [result, piped] = await Promise.all([
      runInPty(['run', '--session', 'narrow', 'hi'], [{ wait_exit: true }], { cwd: dir, cols: COLUMNS }),
      bosun(['run', '--session', 'piped', 'hi'], { cwd: dir, env: { COLUMNS: String(COLUMNS) } }),
    ])
    expect(result.exit_code, explain(result)).toBe(1)
    const rows = result.screen.split('\n')
    expect(rows.filter((row) => row.length >= COLUMNS), explain(result)).toEqual([])
    const first = rows.findIndex((row) => row.startsWith('error SERVER: '))
    expect(first, explain(result)).toBeGreaterThan(-1)
    const continued = rows.slice(first + 1, rows.findIndex((row, index) => index > first && !/^ {2}\S/.test(row)))
    expect(continued.length, explain(result)).toBeGreaterThan(0)
    expect([rows[first]!, ...continued].join(' ').replace(/\s+/g, ' ').trim()).toBe(`error SERVER: ${MESSAGE}`)
    expect(piped.code).toBe(1)
    expect(piped.stderr).toContain(`error SERVER: ${MESSAGE}\n`)
  })
})

// The same for an error before any turn (the config's, printed by the command line itself): it
// was written as one line however narrow the terminal.
describe.concurrent('a config error on a narrow terminal', () => {
  it('word-wraps each line of the error, indented under it; a pipe gets the lines whole', async ({ dir, expect }) => {
    const plugin = '@example/a-plugin-that-nobody-has-installed-here'
    await writeProject(dir, { plugins: [plugin] })
    const [result, piped] = await Promise.all([
      runInPty(['run', 'hi'], [{ wait_exit: true }], { cwd: dir, cols: COLUMNS }),
      bosun(['run', 'hi'], { cwd: dir, env: { COLUMNS: String(COLUMNS) } }),
    ])
    expect(result.exit_code, explain(result)).toBe(1)
    const rows = result.screen.split('\n')
    expect(rows.filter((row) => row.length >= COLUMNS), explain(result)).toEqual([])
    // The error's first line, then its list item: `  - $.plugins[0] …`, its later rows indented two past it.
    expect(rows.some((row) => row.startsWith('error CONFIG_INVALID: ')), explain(result)).toBe(true)
    const item = rows.findIndex((row) => row.startsWith('  - $.plugins[0]'))
    expect(item, explain(result)).toBeGreaterThan(-1)
    const end = rows.findIndex((row, index) => index > item && !/^ {4}\S/.test(row))
    const continued = rows.slice(item + 1, end === -1 ? undefined : end)
    expect(continued.length, explain(result)).toBeGreaterThan(2)
    const pipedItem = piped.stderr.split('\n').find((line) => line.startsWith('  - $.plugins[0]'))!
    expect(pipedItem.length).toBeGreaterThan(COLUMNS * 3)
    // Every character, in order (a word wider than the terminal, the package's name, is cut where it must be).
    expect([rows[item]!, ...continued].join('').replace(/\s+/g, '')).toBe(pipedItem.replace(/\s+/g, ''))
    expect(piped.code).toBe(1)
  })
})
