import { lstat, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CONFIG_SEARCH_PLACES } from '@bosun/core/config'

/** A config the loader would find in a folder: a file of its search places, or `package.json` with a `bosun` key. */
export interface ExistingConfig {
  /** The file's name in the folder (`bosun.config.yaml`, `.bosunrc`, `package.json`). */
  name: string
  /** True for `package.json#bosun`: the file is the project's, only its key is the config. */
  packageKey: boolean
}

/**
 * The configs the loader would find in `dir`, in its search order (the first one wins). Anything
 * at a search place's name counts — a folder or a link to nothing too: the loader reports those
 * rather than pass them over, so a config written beside one would not be the one loaded.
 */
export async function existingConfigs(dir: string): Promise<ExistingConfig[]> {
  const found: ExistingConfig[] = []
  for (const name of CONFIG_SEARCH_PLACES) {
    const path = join(dir, name)
    if (name === 'package.json') {
      if (await hasBosunKey(path)) found.push({ name, packageKey: true })
    } else if (await exists(path)) {
      found.push({ name, packageKey: false })
    }
  }
  return found
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}

/** A `package.json` the loader reads a config from. One that cannot be read or parsed holds none to keep. */
async function hasBosunKey(path: string): Promise<boolean> {
  try {
    const json: unknown = JSON.parse(await readFile(path, 'utf8'))
    return typeof json === 'object' && json !== null && 'bosun' in json
  } catch {
    return false
  }
}
