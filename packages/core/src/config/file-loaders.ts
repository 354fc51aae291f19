import { basename, dirname } from 'node:path'
import { defaultLoaders, type Loader } from 'cosmiconfig'
import { maskCredentials } from './credentials.js'
import { FLATTEN_ADVICE } from './depth.js'
import { missingExportHint } from './export-hint.js'
import { importModule } from './import-module.js'
import { defaultExport, missingPackageHint, summarizeError } from './resolve.js'
import { thrownAt } from './thrown-at.js'

/** A config file that cannot be read as a config; `message` is the problem, ready to show. */
export class ConfigFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ConfigFileError'
  }
}

// Loaders box what they return: cosmiconfig treats `null` as "no config here" and would go on
// searching upwards, but a file that gives null is a mistake to report, not to skip.
const BOX = Symbol('bosun.config')
type Boxed = { [BOX]: unknown }

/** The value a loader boxed (package.json's `bosun` property comes unboxed). */
export function unbox(value: unknown): unknown {
  return typeof value === 'object' && value !== null && BOX in value ? (value as Boxed)[BOX] : value
}

/**
 * ESM and CJS through Node, TS through jiti (and JavaScript whose imports only jiti accepts, see
 * importModule's `lenient`): transpiled in memory, no temporary file beside the config.
 */
export const loadModule: Loader = async (filepath) => {
  let namespace: unknown
  try {
    namespace = await importModule(filepath, { fresh: true, lenient: true })
  } catch (error) {
    // A package the config imports that is not installed (`@bosun/core/config` where only the CLI is): what to install, as for an entry.
    // A name imported from a Bosun package that does not export it (`defineConfig` from
    // `@bosun/core`): which entry point has it — the error itself names neither.
    // Not kept as the cause: the parser's error quotes the file's text, which `--debug` prints.
    const syntax = parseError(error)
    if (syntax !== undefined) throw syntax
    // Code of the file (or a file of the project it imports) that threw as it ran: where (thrownAt).
    const at = thrownAt(error, dirname(filepath))
    const summary = `${summarizeError(error)}${at === undefined ? '' : ` (thrown at ${at})`}`
    const hint = missingPackageHint(error, basename(filepath)) || (await missingExportHint(filepath))
    throw new ConfigFileError(`loading the file threw: ${summary}${hint !== '' && !/[.!?]$/.test(summary) ? '.' : ''}${hint}`, { cause: error })
  }
  const { value, namedExports } = defaultExport(namespace)
  if (namedExports) {
    const names = namedExports.length > 0 ? ` (it exports ${namedExports.join(', ')})` : ''
    throw new ConfigFileError(`the file has no default export${names}. Write: export default defineConfig({ … }).`)
  }
  return { [BOX]: value } satisfies Boxed
}

/**
 * A syntax error jiti's parser found (`ParseError: <reason>\n <file>:<line>:<column>`, the column
 * counted from 0), in the JSON and YAML loaders' words ({@link syntaxError}); undefined for any
 * other error.
 */
function parseError(error: unknown): ConfigFileError | undefined {
  if (!(error instanceof Error)) return undefined
  const found = /^ParseError: ([^\n]*?)\s*\n\s*(\S.*):(\d+):(\d+)\s*$/.exec(error.message)
  if (found === null) return undefined
  const [, reason, file, line, column] = found
  return syntaxError(/\.[cm]?ts$/.test(file!) ? 'TypeScript' : 'JavaScript', file!, maskCredentials(reason!), { line: Number(line), column: Number(column) + 1 })
}

/**
 * JSON, with a message that gives the reason and the line and column but never quotes the file
 * (a quoted line could hold a secret) — nor keeps the parser's error as the cause, which quotes
 * it and which `--debug` prints. A leading byte-order mark (some editors write one) is skipped.
 */
export const loadJson: Loader = (filepath, content) => {
  let value: unknown
  const text = content.startsWith('\uFEFF') ? content.slice(1) : content
  try {
    value = JSON.parse(text)
  } catch (error) {
    const { message } = error as Error
    throw syntaxError('JSON', filepath, jsonReason(message), lineAndColumn(text, jsonErrorPosition(message, text)))
  }
  if (basename(filepath) !== 'package.json') return { [BOX]: value } satisfies Boxed
  // package.json: cosmiconfig reads the `bosun` property from what the loader returns, which
  // must be an object (a `null` there threw a TypeError inside cosmiconfig).
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
    throw new ConfigFileError(`the file is ${what}, not an object. Give it an object ({}), or delete it.`)
  }
  return value
}

/** YAML (also `.bosunrc`): js-yaml's reason and position, without its snippet of the file. */
export const loadYaml: Loader = async (filepath, content) => {
  let value: unknown
  try {
    value = await defaultLoaders['.yaml'](filepath, content)
  } catch (error) {
    // Not the parser's error as the cause: its message carries a snippet of the file.
    throw syntaxError('YAML', filepath, yamlReason(error), yamlPosition(error))
  }
  return { [BOX]: value } satisfies Boxed
}

/** What to check at the position, by format: the mistakes that make most broken files. */
const SYNTAX_HINTS = {
  JSON: 'keys and strings in double quotes, no comma after the last item, no comments',
  YAML: 'indent with spaces, keys of one level at the same column, every quote closed',
  TypeScript: 'every bracket, brace and quote closed, a comma between properties',
  JavaScript: 'every bracket, brace and quote closed, a comma between properties',
} as const

/**
 * One wording for a config file that does not parse, whatever its format:
 * `the file is not valid YAML: <file>:3:11: <reason>. Fix the YAML there (<hints>).` — the
 * position as `file:line:column` (1-based, as editors and terminals open it; a TS config's
 * parser counts columns from 0), or the file alone when the parser gives none. The YAML
 * parser's depth limit is the config's (MAX_CONFIG_DEPTH): the advice is the same as for a JSON
 * or TS config too deep.
 */
function syntaxError(format: keyof typeof SYNTAX_HINTS, file: string, reason: string, at: { line: number; column: number } | undefined): ConfigFileError {
  const where = at === undefined ? file : `${file}:${at.line}:${at.column}`
  const stated = reason.replace(/\.$/, '')
  const advice = /exceeded maxDepth/.test(stated) ? FLATTEN_ADVICE : `Fix the ${format} there (${SYNTAX_HINTS[format]}).`
  return new ConfigFileError(`the file is not valid ${format}: ${where}: ${stated}. ${advice}`)
}

/** 1-based line and column of a character offset. */
function lineAndColumn(text: string, position: number | undefined): { line: number; column: number } | undefined {
  if (position === undefined) return undefined
  const before = text.slice(0, position).split('\n')
  return { line: before.length, column: before.at(-1)!.length + 1 }
}

/**
 * js-yaml's reason (`bad indentation of a mapping entry`), else the first line of the message
 * without cosmiconfig's `YAML Error in <file>:` and js-yaml's `(line:column)`. A tag or anchor
 * name it quotes is the file's own text: what looks like a credential is masked.
 */
function yamlReason(error: unknown): string {
  const { reason, message } = error as { reason?: unknown; message?: unknown }
  const text = typeof reason === 'string' && reason !== '' ? reason : String(message ?? '').replace(/^YAML Error in [^\n]*\n/, '').split('\n')[0]!
  return maskCredentials(text.replace(/\s*\(\d+:\d+\)$/, ''))
}

/** js-yaml's `mark` (0-based line and column), else the `(line:column)` of its message (1-based). */
function yamlPosition(error: unknown): { line: number; column: number } | undefined {
  const mark = (error as { mark?: { line?: unknown; column?: unknown } } | null)?.mark
  if (typeof mark?.line === 'number' && typeof mark.column === 'number') return { line: mark.line + 1, column: mark.column + 1 }
  const stated = /\((\d+):(\d+)\)/.exec(String((error as { message?: unknown } | null)?.message ?? ''))
  return stated === null ? undefined : { line: Number(stated[1]), column: Number(stated[2]) }
}

function jsonReason(message: string): string {
  // V8 may quote the text around the error ('Unexpected token 's', ..."apiKey": sk-te"... is not
  // valid JSON'): the quote is cut from the message and only used to find the position.
  return message.split(/,?\s*(?:\.\.\.)?"|\s(?:in|after) JSON\b|\s+at position \d+/)[0]!.trim()
}

function jsonErrorPosition(message: string, content: string): number | undefined {
  const stated = /position (\d+)/.exec(message)?.[1]
  if (stated !== undefined) return Number(stated)
  // The file stops inside a value: the error is where the text ends.
  if (/^Unexpected end of JSON input/.test(message)) return content.trimEnd().length
  // V8 quotes up to 10 characters either side of the error, with "..." where it cut the text.
  const quoted = /(\.\.\.)?"(.*)"(?:\.\.\.)? is not valid JSON$/s.exec(message)
  const token = /^Unexpected token '(.)'/.exec(message)?.[1]
  if (!quoted) return undefined
  const start = content.indexOf(quoted[2]!)
  if (start < 0) return undefined
  if (quoted[1] !== undefined) return start + 10
  return token === undefined ? start : start + Math.max(0, quoted[2]!.indexOf(token))
}
