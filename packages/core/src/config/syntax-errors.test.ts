// A config file that does not parse is said in one format whatever its format:
// `the file is not valid <JSON|YAML>: <file>:<line>:<column>: <reason>. <what to do>` — the
// position 1-based, as editors and terminals open `file:line:column` (and as a TS config's
// parse error already gave it).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { loadConfig } from './load.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

/** The one problem a config file's loading reports, and the file's path. */
async function refusal(name: string, text: string): Promise<{ file: string; problem: { path: string; message: string } }> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-syntax-'))
  dirs.push(dir)
  const file = join(dir, name)
  await writeFile(file, text)
  const error = await loadConfig({ cwd: dir, env: {} }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
  const problems = (error as BosunError).details.problems as { path: string; message: string }[]
  expect(problems).toHaveLength(1)
  return { file, problem: problems[0]! }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** The one format: format, file:line:column, reason, and what to fix there. */
const syntaxMessage = (format: string, file: string, line: number, column: number) =>
  new RegExp(`^the file is not valid ${format}: ${escape(file)}:${line}:${column}: [^\\n]+[^.]\\. Fix the ${format} there \\([^)]+\\)\\.$`)

describe('a config file with a syntax error', () => {
  it.each([
    ['bosun.config.json', 'JSON', '{\n  "model": { "adapter": "scripted" },\n}\n', 3, 1, 'Expected double-quoted property name'],
    ['bosun.config.yaml', 'YAML', 'model:\n  adapter: scripted\n   options: {}\n', 3, 11, 'bad indentation of a mapping entry'],
    ['bosun.config.json', 'JSON', '{\n  "system": "unfinished\n', 2, 24, 'Bad control character in string literal'],
    ['bosun.config.yml', 'YAML', 'system: "unfinished\n', 2, 1, 'unexpected end of the stream within a double quoted scalar'],
    ['.bosunrc', 'YAML', 'plugins:\n  - retry\n - rate-limit\n', 3, 2, 'bad indentation of a mapping entry'],
  ])('%s (%s): file:line:column, the reason, what to fix', async (name, format, text, line, column, reason) => {
    const { file, problem } = await refusal(name, text)
    expect(problem.path).toBe('$')
    expect(problem.message).toMatch(syntaxMessage(format, file, line, column))
    expect(problem.message).toContain(`:${line}:${column}: ${reason}. Fix the ${format} there (`)
  })

  it('a JSON file that stops inside a value points at its end, not at nothing', async () => {
    const { file, problem } = await refusal('bosun.config.json', '{\n  "model": \n\n')
    expect(problem.message).toMatch(syntaxMessage('JSON', file, 2, 11))
    expect(problem.message).toContain('Unexpected end of JSON input')
  })
})
