// docs/cli.md says it documents every bosun command and flag: this holds it to the program. Each
// command's every flag is in the docs/cli.md section about that command (a "### " heading naming
// `bosun <command>`; the global ones under "Global options"), in backticks; a flag with a default
// has a table row there showing it; and no flag docs/cli.md or the CLI README names is one the
// program does not have. Every other page (docs/*.md, the packages' READMEs) that shows a `bosun
// <command> … --flag` command — in a code span or a code block, read by doc-commands.ts — gives that
// command a flag it has. A flag added without docs, or removed or renamed with its docs left, fails here.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { createProgram } from '../src/program.js'
import { docCommands } from './doc-commands.js'

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8')
const cliMd = read('../../../docs/cli.md')
const readme = read('../README.md')

const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), cwd: process.cwd(), env: {}, onInterrupt: () => () => {} }
const program = createProgram(io, { code: 0 }, false)

interface Flag { command: string; top: string; long: string; flags: string; defaultValue: unknown }

/** Every option of every command, with the top-level command whose section documents it. */
function flagsOf(command: Command, path: string[] = []): Flag[] {
  const name = path.join(' ')
  const own = command.options.map((option) => ({ command: name, top: path[0] ?? '', long: option.long!, flags: option.flags, defaultValue: option.defaultValue }))
  return [...own, ...command.commands.flatMap((sub) => flagsOf(sub, [...path, sub.name()]))]
}
const flags = flagsOf(program)

/** The text of the "### " sections whose heading names `bosun <top>` (or "Global options" for the program's own). */
function sectionsAbout(top: string): string {
  const parts = cliMd.split(/^(?=#{2,3} )/m)
  return parts.filter((part) => {
    const heading = part.split('\n')[0]!
    return top === '' ? /^### Global options/.test(heading) : new RegExp(`^### .*\`bosun ${top}\\b`).test(heading)
  }).join('\n')
}

/** A flag in backticks: `--json`, `-f, --follow`, `--port <port>`, `bosun chat --raw`. */
const named = (text: string, long: string) => new RegExp('`[^`\\n]*' + long + '(?![\\w-])[^`\\n]*`').test(text)

describe('docs/cli.md documents every flag of every command', () => {
  it('finds the commands and their flags', () => {
    expect(flags.map((f) => `${f.command} ${f.long}`)).toEqual(expect.arrayContaining(['run --session', 'serve --grace-ms', 'sessions fork --at-turn', ' --config']))
  })
  it.each(flags.map((f) => [`bosun ${f.command} ${f.long}`.replace(/\s+/g, ' '), f] as const))('%s', (_name, flag) => {
    const section = sectionsAbout(flag.top)
    expect(section, `a "### " section of docs/cli.md naming \`bosun ${flag.top}\``).not.toBe('')
    expect(named(section, flag.long), `${flag.long} in backticks in the section about bosun ${flag.top}`).toBe(true)
    if (flag.defaultValue !== undefined) {
      const row = section.split('\n').find((line) => line.startsWith('|') && named(line, flag.long))
      expect(row, `a table row for ${flag.long}`).toBeDefined()
      expect(row, `the row of ${flag.long} shows its default`).toContain(`\`${String(flag.defaultValue)}\``)
    }
  })
})

it('names no flag the program does not have (docs/cli.md, the CLI README)', () => {
  const known = new Set([...flags.map((f) => f.long), '--help'])
  for (const [where, text] of [['docs/cli.md', cliMd], ['packages/cli/README.md', readme]] as const) {
    const spans = text.match(/`[^`\n]*`/g) ?? []
    const unknown = spans.flatMap((span) => span.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? []).filter((flag) => !known.has(flag))
    expect(unknown, where).toEqual([])
  }
})

/** The docs pages and READMEs other than docs/cli.md, as [path, text]. */
function otherPages(): [string, string][] {
  const rootUrl = new URL('../../../', import.meta.url)
  const folders = (dir: string) => readdirSync(new URL(`${dir}/`, rootUrl), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `${dir}/${e.name}`)
  const packages = folders('packages').flatMap((dir) => [dir, ...folders(dir)])
  const pages = [
    ...readdirSync(new URL('docs/', rootUrl)).filter((name) => name.endsWith('.md') && name !== 'cli.md').map((name) => `docs/${name}`),
    'README.md',
    ...[...packages, ...folders('examples')].map((dir) => `${dir}/README.md`).filter((page) => existsSync(new URL(page, rootUrl))),
  ]
  return pages.map((page) => [page, readFileSync(new URL(page, rootUrl), 'utf8')])
}

/** The flags of `bosun …` commands in `markdown` that the command does not have, as `bosun <command> --flag` (line). */
function unknownFlags(markdown: string): string[] {
  const global = new Set([...flags.filter((f) => f.command === '').map((f) => f.long), '--help'])
  const ofCommand = (path: string) => new Set(flags.filter((f) => f.command === path).map((f) => f.long))
  const commands = new Set(flags.map((f) => f.command).filter(Boolean))
  const wrong: string[] = []
  for (const { line, text } of docCommands(markdown)) {
    const [, first, second, rest] = /^bosun ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?(.*)$/.exec(text) ?? []
    if (first === undefined) continue
    const path = second !== undefined && commands.has(`${first} ${second}`) ? `${first} ${second}` : first
    if (!commands.has(path) && !program.commands.some((c) => c.name() === path)) continue
    const known = new Set([...global, ...ofCommand(path), ...(path === 'plugins' || path === 'sessions' ? ofCommand(`${path} list`) : [])])
    const after = path === first ? `${second ?? ''}${rest}` : rest!
    for (const [flag] of after.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)) if (!known.has(flag)) wrong.push(`bosun ${path} ${flag} (line ${line})`)
  }
  return wrong
}

describe('reading the commands other pages show', () => {
  it('reads a command in a code block across its \\-continued lines: a bogus flag on a continued line is caught', () => {
    const page = ['```sh', 'bosun serve --port 4477 \\', '  --host 0.0.0.0 \\', '  --no-such-flag', '```', ''].join('\n')
    expect(docCommands(page)).toEqual([{ line: 2, text: 'bosun serve --port 4477 --host 0.0.0.0 --no-such-flag' }])
    expect(unknownFlags(page)).toEqual(['bosun serve --no-such-flag (line 2)'])
  })

  it('reads a code span to its end, and prose after it not at all', () => {
    const page = 'Start it with `bosun serve --port 4477`, then pass --token-only to curl: bosun serve takes --not-its-flag in no form.\n'
    expect(docCommands(page)).toEqual([{ line: 1, text: 'bosun serve --port 4477' }])
    expect(unknownFlags(page)).toEqual([])
  })

  it('ends a command in a code block where the shell command ends', () => {
    const page = ['```sh', 'bosun sessions list --json | jq --raw-output .id # --not-a-flag', 'bosun run --session s1 "hi" && curl --silent localhost:4477', '```'].join('\n')
    expect(docCommands(page).map((c) => c.text)).toEqual(['bosun sessions list --json', 'bosun run --session s1 "hi"'])
    expect(unknownFlags(page)).toEqual([])
  })
})

it('every other page gives a bosun command only flags it has', () => {
  const pages = otherPages()
  expect(pages.map(([page]) => page)).toEqual(expect.arrayContaining(['docs/host.md', 'docs/marketplace.md', 'packages/host/README.md']))
  expect(pages.flatMap(([page, text]) => docCommands(text)).length, 'the commands the pages show').toBeGreaterThan(50)
  expect(pages.flatMap(([page, text]) => unknownFlags(text).map((wrong) => `${page}: ${wrong}`))).toEqual([])
})
