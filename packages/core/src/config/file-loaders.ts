import { basename } from 'node:path'
import { defaultLoaders, type Loader } from 'cosmiconfig'
import { createJiti } from 'jiti'
import { defaultExport, summarizeError } from './resolve.js'

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

/** TS, ESM and CJS through jiti: transpiled in memory, no temporary file beside the config. */
export const loadModule: Loader = async (filepath) => {
  const jiti = createJiti(filepath, { interopDefault: false, moduleCache: false })
  let namespace: unknown
  try {
    namespace = await jiti.import(filepath)
  } catch (error) {
    throw new ConfigFileError(`loading the file threw: ${summarizeError(error)}`, { cause: error })
  }
  const { value, namedExports } = defaultExport(namespace)
  if (namedExports) {
    const names = namedExports.length > 0 ? ` (it exports ${namedExports.join(', ')})` : ''
    throw new ConfigFileError(`the file has no default export${names}. Write: export default defineConfig({ … }).`)
  }
  return { [BOX]: value } satisfies Boxed
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
    throw new ConfigFileError(`the file is not valid JSON: ${jsonReason(error as Error, text)}`)
  }
  // package.json: cosmiconfig reads the `bosun` property from what the loader returns.
  return basename(filepath) === 'package.json' ? value : ({ [BOX]: value } satisfies Boxed)
}

/** YAML (also `.bosunrc`): js-yaml's reason and position, without its snippet of the file. */
export const loadYaml: Loader = async (filepath, content) => {
  let value: unknown
  try {
    value = await defaultLoaders['.yaml'](filepath, content)
  } catch (error) {
    const reason = (error as Error).message.replace(/^YAML Error in [^\n]*\n/, '').split('\n')[0]
    // Not the parser's error as the cause: its message carries a snippet of the file.
    throw new ConfigFileError(`the file is not valid YAML: ${reason}`)
  }
  return { [BOX]: value } satisfies Boxed
}

function jsonReason(error: Error, content: string): string {
  // V8 may quote the text around the error ('Unexpected token 's', ..."apiKey": sk-te"... is not
  // valid JSON'): the quote is cut from the message and only used to find the position.
  const reason = error.message.split(/,?\s*(?:\.\.\.)?"|\s(?:in|after) JSON\b/)[0]!.trim()
  const position = jsonErrorPosition(error.message, content)
  if (position === undefined) return reason
  const before = content.slice(0, position).split('\n')
  return `${reason} (line ${before.length}, column ${before.at(-1)!.length + 1})`
}

function jsonErrorPosition(message: string, content: string): number | undefined {
  const stated = /position (\d+)/.exec(message)?.[1]
  if (stated !== undefined) return Number(stated)
  // V8 quotes up to 10 characters either side of the error, with "..." where it cut the text.
  const quoted = /(\.\.\.)?"(.*)"(?:\.\.\.)? is not valid JSON$/s.exec(message)
  const token = /^Unexpected token '(.)'/.exec(message)?.[1]
  if (!quoted) return undefined
  const start = content.indexOf(quoted[2]!)
  if (start < 0) return undefined
  if (quoted[1] !== undefined) return start + 10
  return token === undefined ? start : start + Math.max(0, quoted[2]!.indexOf(token))
}
