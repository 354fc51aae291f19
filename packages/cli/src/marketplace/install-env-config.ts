import { readFile } from 'node:fs/promises'
import { BosunError, ErrorCodes } from '@bosun/core'

/**
 * The config as `bosun plugins add` reads it before installing: its `…Env` options name the
 * variables the install scripts must not see. A config that cannot be loaded does not stop the
 * install — a TypeScript config that imports the very package being added cannot load until it
 * is installed — so the variables are then withheld by their names and by those its text names.
 */
export interface ConfigBeforeInstall<C> {
  /** The loaded config, or undefined when it could not be loaded. */
  loaded: C | undefined
  /** The config file (known also when it could not be loaded, from the error), or undefined when there is none. */
  file: string | undefined
  /**
   * When it could not be loaded: the variables its text names after a `…Env` key, read without
   * running it. A variable the config names need not match a secret's pattern (`urlEnv:
   * 'DATABASE_URL'`, a URL with a password): the install scripts must not see it either.
   */
  namedInText: string[]
}

/** `fooEnv: 'NAME'`, `"fooEnv": "NAME"`, `fooEnv: NAME` (YAML), `fooEnv = 'NAME'`: the NAMEs. */
const ENV_OPTION_IN_TEXT = /[A-Za-z0-9_$]*Env["'`]?\s*[:=]\s*["'`]?([A-Za-z_][A-Za-z0-9_]*)/g

/** The variables `text` (a config file that could not be loaded) names after a `…Env` key. */
export function envNamesInText(text: string): string[] {
  return [...new Set([...text.matchAll(ENV_OPTION_IN_TEXT)].map((match) => match[1]!))]
}

/**
 * Runs `load`; a config the core refuses (`CONFIG_INVALID`: a syntax error, an import that is
 * not installed, a throw in its code) gives `loaded: undefined`, the file its error names and the
 * variables that file's text names.
 * Any other error is thrown: it is not the config's.
 */
export async function configBeforeInstall<C extends { file: string | undefined }>(load: () => Promise<C>): Promise<ConfigBeforeInstall<C>> {
  try {
    const loaded = await load()
    return { loaded, file: loaded.file, namedInText: [] }
  } catch (error) {
    if (!BosunError.is(error, ErrorCodes.CONFIG_INVALID)) throw error
    const named = (error.details as { file?: unknown } | undefined)?.file
    const file = typeof named === 'string' ? named : undefined
    const text = file === undefined ? '' : await readFile(file, 'utf8').catch(() => '')
    return { loaded: undefined, file, namedInText: envNamesInText(text) }
  }
}
