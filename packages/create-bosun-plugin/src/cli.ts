import { isAbsolute, join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { ScaffoldError, ScaffoldErrorCodes } from './errors.js'
import { scaffold } from './scaffold.js'

/** Where the command writes and what it resolves from; tests pass their own. */
export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  cwd: string
}

/** The text `--help` prints (and an argument error follows with). */
export const USAGE = `Usage: create-bosun-plugin <name> [--dir <path>] [--scope <@scope>]

Creates a Bosun plugin package: bosun-plugin-<name> (or @scope/bosun-plugin-<name>) with
src/index.ts (definePlugin), src/options.ts (options type and JSON Schema), a test using
@bosun/testkit, a README, a changeset and the TypeScript configs.

Arguments:
  <name>           lower-case letters, digits and hyphens, e.g. my-guard (also @acme/my-guard)

Options:
  -d, --dir <path>   folder to create (must be absent or empty); default ./bosun-plugin-<name>
  -s, --scope <@x>   publish under an npm scope: @x/bosun-plugin-<name>
  -h, --help         show this help

Example:
  pnpm create bosun-plugin my-guard
  npm create bosun-plugin@latest -- my-guard --scope @acme`

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  cwd: process.cwd(),
}

/**
 * Runs the command with `argv` (the arguments after the program name) and returns the exit
 * code: 0 on success or `--help`, 1 when something failed (the error's code and message are
 * printed). It never exits the process itself: the bin does, by setting `process.exitCode`.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2))
 */
export async function main(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  try {
    const { values, positionals } = parse(argv)
    if (values.help) {
      io.stdout(USAGE)
      return 0
    }
    const [name, ...extra] = positionals
    if (name === undefined || extra.length > 0) {
      throw new ScaffoldError(
        ScaffoldErrorCodes.INVALID_ARGUMENTS,
        name === undefined ? 'Give the plugin name, e.g. create-bosun-plugin my-guard.' : `Give one plugin name; got ${positionals.join(', ')}.`,
      )
    }
    const result = await scaffold({ name, cwd: io.cwd, ...(values.dir === undefined ? {} : { dir: values.dir }), ...(values.scope === undefined ? {} : { scope: values.scope }) })
    const fromCwd = relative(io.cwd, result.dir)
    const where = fromCwd === '' ? '.' : fromCwd.startsWith('..') || isAbsolute(fromCwd) ? result.dir : fromCwd
    io.stdout(
      [
        `Created the plugin package ${result.names.packageName} in ${folderWords(where, result.dir)}:`,
        ...result.files.map((file) => `  ${file}`),
        '',
        'Next:',
        ...(where === '.' ? [] : [`  cd ${where}`]),
        '  npm install      # or pnpm install',
        '  npm test         # runs the plugin in a real agent on the scripted model',
        '',
        `Then edit src/index.ts. A config names the plugin '${result.names.configName}'.`,
      ].join('\n'),
    )
    return 0
  } catch (error) {
    if (error instanceof ScaffoldError) {
      io.stderr(`create-bosun-plugin: ${error.code}: ${error.message}`)
      if (error.code === ScaffoldErrorCodes.INVALID_ARGUMENTS) io.stderr(`\n${USAGE}`)
      return 1
    }
    io.stderr(`create-bosun-plugin: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    return 1
  }
}

/**
 * The folder as a path, told apart from the package's name ("Created bosun-plugin-my-guard in
 * bosun-plugin-my-guard" read as the name twice): `./x/` below the current folder, the absolute
 * path elsewhere, and the current folder by its path.
 */
function folderWords(where: string, dir: string): string {
  if (where === '.') return `the current folder (${join(dir, '/')})`
  return `the folder ${isAbsolute(where) ? join(where, '/') : `./${join(where, '/')}`}`
}

/** `node:util` parseArgs, with its errors turned into INVALID_ARGUMENTS. */
function parse(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        dir: { type: 'string', short: 'd' },
        scope: { type: 'string', short: 's' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    throw new ScaffoldError(ScaffoldErrorCodes.INVALID_ARGUMENTS, error instanceof Error ? error.message : String(error))
  }
}
