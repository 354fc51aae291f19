import { readFile } from 'node:fs/promises'
import { dirname, extname, join } from 'node:path'
import type { BosunError } from '../errors.js'
import { ConfigFileError, loadJson, loadYaml } from './file-loaders.js'
import { configError } from './problems.js'

/**
 * A failure of `cosmiconfig()` itself, as a config error that names the file and what to do.
 *
 * Before any search, cosmiconfig reads its own "meta config" — a `cosmiconfig` key in
 * `package.json`, or `package.yaml`, `.config/config.{json,yaml,yml}` — from the process's
 * working directory, with its own parsers. A `package.json` there that is not valid JSON, starts
 * with a byte-order mark or is `null` threw parse-json's message (which quotes the file) or a
 * TypeError, which Bosun reported as a bug of its own (`UNEXPECTED`) while naming no file to fix.
 * The file is read again here and described with the config loaders' own wording, which never
 * quotes it.
 */
export async function metaConfigError(error: unknown, cwd = process.cwd()): Promise<BosunError> {
  const file = (error as { filepath?: unknown } | undefined)?.filepath
  const path = typeof file === 'string' ? file : join(cwd, 'package.json')
  let message: string | undefined
  try {
    message = await describe(path, await readFile(path, 'utf8'))
  } catch {
    // Unreadable now (removed meanwhile, a folder): the generic line below.
  }
  message ??= `the config search could not read it (${error instanceof Error ? error.name : 'an error'}). Fix the file, or run bosun from another folder.`
  return configError(path, dirname(path), [{ path: '$', message }])
}

/** What is wrong with a meta config file, in the loaders' words; undefined when nothing is seen. */
async function describe(file: string, text: string): Promise<string | undefined> {
  if (text.startsWith('\uFEFF')) return 'the file starts with a byte-order mark, which the config search cannot read. Save it as UTF-8 without one.'
  const json = extname(file) === '.json'
  // A JavaScript or TypeScript meta config (.config/config.js) is not a parse problem: the generic line.
  if (!json && !['.yaml', '.yml'].includes(extname(file))) return undefined
  try {
    const value: unknown = json ? loadJson(file, text) : await loadYaml(file, text)
    if (json && value === null) return 'the file is null, not an object. Give it an object ({}), or delete it.'
  } catch (problem) {
    if (problem instanceof ConfigFileError) return problem.message
  }
  return undefined
}
