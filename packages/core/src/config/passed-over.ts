import { lstat, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/**
 * The first search place that is there but that cosmiconfig's search passed over. Its search
 * skips a place it cannot read — a file without read permission (EACCES), a folder (EISDIR), a
 * link to nothing (ENOENT) — and goes on to the next place, or finds no config: the user's config
 * would silently not apply, the defaults (or a lesser file) running instead. So each place the
 * search tried before `found` (all of them when it found none) is looked at, in its order, and
 * the first one present is returned for loading by itself, which reports why it cannot be read.
 * A package.json is passed over by design (without a "bosun" key), and left out here.
 */
export async function placePassedOver(cwd: string, places: readonly string[], found: string | undefined): Promise<string | undefined> {
  const foundDir = found === undefined ? undefined : dirname(found)
  for (const dir of await searchedDirs(cwd, foundDir)) {
    const tried = dir === foundDir ? places.slice(0, places.indexOf(basename(found!))) : places
    const present = await Promise.all(tried.map(async (place) => place !== 'package.json' && (await exists(join(dir, place), lstat))))
    const index = present.indexOf(true)
    if (index >= 0) return join(dir, tried[index]!)
  }
  return undefined
}

/** The folders cosmiconfig's `project` search walks: from `cwd` up to `last`, or to the first with a package.json or package.yaml. */
async function searchedDirs(cwd: string, last: string | undefined): Promise<string[]> {
  const dirs: string[] = []
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.push(dir)
    if (dir === last || dir === dirname(dir)) return dirs
    if (last === undefined && ((await exists(join(dir, 'package.json'), stat)) || (await exists(join(dir, 'package.yaml'), stat)))) return dirs
  }
}

async function exists(path: string, check: typeof lstat | typeof stat): Promise<boolean> {
  return check(path).then(() => true, () => false)
}
