import { lstat, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CONFIG_SEARCH_PLACES } from '@bosun/core/config'
import { CliErrorCodes, cliError } from '../errors.js'

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
 * Throws `PACKAGE_JSON_INVALID` for a `package.json` the loader fails on: it reads that file
 * first, so no config written beside it would ever load.
 */
export async function existingConfigs(dir: string): Promise<ExistingConfig[]> {
  const found: ExistingConfig[] = []
  if (await hasBosunKey(dir)) found.push({ name: 'package.json', packageKey: true })
  for (const name of await configFilesIn(dir)) found.push({ name, packageKey: false })
  return found
}

/** The search places other than `package.json` that something stands at in `dir`, in search order. */
export async function configFilesIn(dir: string): Promise<string[]> {
  const places = CONFIG_SEARCH_PLACES.filter((name) => name !== 'package.json')
  const present = await Promise.all(places.map(async (name) => (await exists(join(dir, name))) && name))
  return present.filter((name): name is string => name !== false)
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch {
    return false
  }
}

/**
 * Whether `dir/package.json` holds a config, as the loader (cosmiconfig) reads it: the value of
 * its own `bosun` property, where `null` is no config. A file that cannot be read holds none to
 * keep (the loader passes it over too); one the loader fails on — empty, not JSON, or not an
 * object (`null`, an array, a number) — is refused.
 */
async function hasBosunKey(dir: string): Promise<boolean> {
  let text: string
  try {
    text = await readFile(join(dir, 'package.json'), 'utf8')
  } catch {
    return false
  }
  let json: unknown
  try {
    // A byte-order mark is read past, as the loader does.
    const body = text.startsWith('\uFEFF') ? text.slice(1) : text
    if (body.trim() === '') throw new SyntaxError('empty')
    json = JSON.parse(body)
  } catch {
    throw invalidPackageJson(dir, 'is not valid JSON')
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalidPackageJson(dir, `is ${json === null ? 'null' : Array.isArray(json) ? 'an array' : `a ${typeof json}`}, not an object`)
  }
  const value: unknown = Object.prototype.hasOwnProperty.call(json, 'bosun') ? (json as { bosun: unknown }).bosun : undefined
  return value !== undefined && value !== null
}

function invalidPackageJson(dir: string, what: string): Error {
  return cliError(
    CliErrorCodes.PACKAGE_JSON_INVALID,
    `package.json in ${dir} ${what} — fix or remove it first. The config loader reads it before any bosun.config.*, so a config written beside it would never be loaded.`,
    { file: join(dir, 'package.json') },
  )
}
