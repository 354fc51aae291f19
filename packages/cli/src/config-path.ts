import { readdir, stat } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import { BosunError, ErrorCodes } from '@bosun/core'
import { CONFIG_SEARCH_PLACES } from '@bosun/core/config'

/**
 * The loader's error for a `--config` path that names nothing, or a folder, said for the command
 * line. The loader knows only the file (`$: the file does not exist.`, or `it is a folder … Rename
 * or remove the folder`, which is wrong advice for a folder the user named on purpose); the CLI
 * knows the path was typed, relative to the current folder, and can name the config files beside
 * it, or in that folder, to give instead. Any other error is returned as it is.
 */
export async function explainConfigPath(error: unknown, cwd: string, given: string): Promise<unknown> {
  if (!BosunError.is(error, ErrorCodes.CONFIG_INVALID)) return error
  const file = resolve(cwd, given)
  const found = await stat(file).catch((failure: NodeJS.ErrnoException) => failure.code)
  const searchOn = 'or leave --config out to use the config found from the current folder up to the project root'
  let text: string
  if (found === 'ENOENT') {
    const beside = await configFilesIn(dirname(file))
    const named = beside === undefined ? '' : beside.length === 0 ? ` ${dirname(file)} holds no config file.` : ` ${dirname(file)} holds ${listed(beside)}.`
    const give = beside === undefined || beside.length === 0 ? 'Check the path' : `Give ${beside.length === 1 ? 'that file' : 'one of them'} (--config ${pathFrom(cwd, dirname(file), beside[0]!)})`
    text = `the file does not exist (--config ${given}, read from the current folder, ${cwd}).${named} ${give}, ${searchOn}.`
  } else if (typeof found === 'object' && found.isDirectory()) {
    const inside = (await configFilesIn(file)) ?? []
    const give = inside.length === 0
      ? 'it holds no config file (bosun.config.*, .bosunrc*). Name the config file itself'
      : `it holds ${listed(inside)}. Name the file itself (--config ${pathFrom(cwd, file, inside[0]!)})`
    text = `it is a folder, not a config file: ${give}, ${searchOn}.`
  } else {
    return error
  }
  return new BosunError(ErrorCodes.CONFIG_INVALID, `Invalid config ${file}:\n  - $: ${text}`, {
    cause: error,
    details: { file, problems: [{ path: '$', message: text }] },
  })
}

/** The config files the loader would look for in `dir`, in its order; `undefined` when the folder cannot be read. */
async function configFilesIn(dir: string): Promise<string[] | undefined> {
  const names = await readdir(dir).catch(() => undefined)
  if (names === undefined) return undefined
  return CONFIG_SEARCH_PLACES.filter((place) => place !== 'package.json' && names.includes(place))
}

function listed(names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

/** `dir/name` as a path from `cwd`, as it would be typed after --config. */
function pathFrom(cwd: string, dir: string, name: string): string {
  const path = relative(cwd, resolve(dir, name))
  return path.startsWith('..') || path.startsWith('/') ? path : `./${path}`
}
