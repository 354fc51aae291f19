// `bosun log` on a terminal narrower than its lines (found walking the CLI as a new user at 60
// columns): the timeline's lines were left to the terminal, which cut them mid-word ("The connect"
// / "ion to the server") and ran the rest on at the left edge, where it read as the next item.
// Now each line is word-wrapped, its rows after the first indented under it; piped, lines stay whole.
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'
import { runInPty, type PtyResult } from './pty.js'

beforeAll(requireBuild)

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`
const COLUMNS = 60
const PROMPT = 'Compare the connection pooling settings of the staging and production databases and list every difference'

describe.concurrent('bosun log on a narrow terminal', () => {
  it('word-wraps each line, indented under it; a pipe gets the lines whole', async ({ dir, expect }) => {
    expect((await bosun(['run', '--session', 'pooling', PROMPT], { cwd: dir })).code).toBe(0)
    const [result, piped] = await Promise.all([
      runInPty(['log', 'pooling'], [{ wait_exit: true }], { cwd: dir, cols: COLUMNS }),
      bosun(['log', 'pooling'], { cwd: dir, env: { COLUMNS: String(COLUMNS) } }),
    ])
    expect(result.ok, explain(result)).toBe(true)
    const rows = result.screen.split('\n')
    expect(rows.filter((row) => row.length >= COLUMNS), explain(result)).toEqual([])
    // The user's line: its first row, then rows indented two past it, every word whole.
    const first = rows.findIndex((row) => /^ {4}user {6}Compare/.test(row))
    expect(first, explain(result)).toBeGreaterThan(-1)
    const continued = rows.slice(first + 1, rows.findIndex((row, index) => index > first && !/^ {6}\S/.test(row)))
    expect(continued.length, explain(result)).toBeGreaterThan(0)
    expect([rows[first]!, ...continued].join(' ').replace(/\s+/g, ' ').trim()).toBe(`user ${PROMPT}`)
    expect(piped.stdout).toContain(`    user      ${PROMPT}\n`)
  })
})
