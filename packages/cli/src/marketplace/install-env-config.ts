import { BosunError, ErrorCodes } from '@bosun/core'

/**
 * The config as `bosun plugins add` reads it before installing: its `…Env` options name the
 * variables the install scripts must not see. A config that cannot be loaded does not stop the
 * install — a TypeScript config that imports the very package being added cannot load until it
 * is installed — so the variables are then withheld by their names alone.
 */
export interface ConfigBeforeInstall<C> {
  /** The loaded config, or undefined when it could not be loaded. */
  loaded: C | undefined
  /** The config file (known also when it could not be loaded, from the error), or undefined when there is none. */
  file: string | undefined
}

/**
 * Runs `load`; a config the core refuses (`CONFIG_INVALID`: a syntax error, an import that is
 * not installed, a throw in its code) gives `loaded: undefined` and the file its error names.
 * Any other error is thrown: it is not the config's.
 */
export async function configBeforeInstall<C extends { file: string | undefined }>(load: () => Promise<C>): Promise<ConfigBeforeInstall<C>> {
  try {
    const loaded = await load()
    return { loaded, file: loaded.file }
  } catch (error) {
    if (!BosunError.is(error, ErrorCodes.CONFIG_INVALID)) throw error
    const file = (error.details as { file?: unknown } | undefined)?.file
    return { loaded: undefined, file: typeof file === 'string' ? file : undefined }
  }
}
