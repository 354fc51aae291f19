// The release half of the rehearsal: a throwaway copy of the working tree is released to the
// private registry exactly as docs/releasing.md says (`pnpm version-packages`, `pnpm release`),
// so the repository itself is never versioned, built or tagged by the test.
import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Registry } from './registry.js'
import { cleanEnv, succeed } from './processes.js'

/** A package the release published: its name and version, and its folder in the copy. */
export interface Published {
  name: string
  version: string
  dir: string
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Release Rehearsal',
  GIT_AUTHOR_EMAIL: 'rehearsal@example.invalid',
  GIT_COMMITTER_NAME: 'Release Rehearsal',
  GIT_COMMITTER_EMAIL: 'rehearsal@example.invalid',
}

/**
 * Copies the working tree (the files git tracks and the untracked ones it does not ignore: no
 * node_modules) to `dest` and makes it a git repository of one commit, as a clone would be:
 * changesets reads the history for its changelogs and tags the release. The builds the tree has
 * (each project's `dist/` with its `.tsbuildinfo`) come along, and every file keeps its
 * modification time, so the release's `tsc -b` rebuilds what is out of date in the tree
 * (everything, when nothing was built) rather than all of it.
 */
export async function copyWorkingTree(root: string, dest: string): Promise<void> {
  const env = cleanEnv(GIT_IDENTITY)
  const { stdout } = await succeed('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, env })
  for (const file of stdout.split('\0')) {
    if (file === '' || !existsSync(join(root, file))) continue // a tracked file deleted in the working tree
    await mkdir(dirname(join(dest, file)), { recursive: true })
    await cp(join(root, file), join(dest, file), { preserveTimestamps: true })
  }
  const build = JSON.parse(await readFile(join(root, 'tsconfig.build.json'), 'utf8')) as { references: { path: string }[] }
  for (const { path } of build.references) {
    if (existsSync(join(root, path, 'dist'))) await cp(join(root, path, 'dist'), join(dest, path, 'dist'), { recursive: true, preserveTimestamps: true })
  }
  await succeed('git', ['init', '--quiet', '--initial-branch=main'], { cwd: dest, env })
  await succeed('git', ['add', '--all'], { cwd: dest, env })
  await succeed('git', ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '--message', 'rehearsal'], { cwd: dest, env })
}

/**
 * The folder holding the `pnpm` the workspace names in `packageManager` (changesets runs
 * `pnpm publish` by that name). Found through npm's own exec cache, so it works whether or not
 * the test runs under pnpm.
 */
export async function pnpmBinDir(root: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { packageManager: string }
  const env = cleanEnv({ npm_config_yes: 'true' })
  const { stdout } = await succeed('npm', ['exec', '--yes', `--package=${manifest.packageManager}`, '-c', 'command -v pnpm'], { cwd: root, env })
  return dirname(stdout.trim())
}

/**
 * Releases the copy at `dir` to `registry` with the documented commands: `pnpm install
 * --frozen-lockfile` (from the store the workspace's install filled, against the registry the
 * workspace uses: pnpm checks the lockfile's supply-chain policies with that registry's
 * metadata), then, with `registry` as the registry, `pnpm version-packages` (pending changesets
 * become versions and CHANGELOGs; peer ranges follow) and `pnpm release` (build, then `changeset
 * publish`). Returns what was published.
 */
export async function releaseCopy(dir: string, registry: Registry, pnpmDir: string): Promise<Published[]> {
  const PATH = `${pnpmDir}:${process.env.PATH ?? ''}`
  await succeed('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], { cwd: dir, env: cleanEnv({ PATH, CI: 'true' }) })
  const env = cleanEnv({ ...GIT_IDENTITY, PATH, npm_config_userconfig: registry.npmrc, npm_config_registry: registry.url, CI: 'true' })
  await succeed('pnpm', ['version-packages'], { cwd: dir, env })
  await succeed('pnpm', ['release'], { cwd: dir, env })
  const config = JSON.parse(await readFile(join(dir, '.changeset/config.json'), 'utf8')) as { fixed: string[][] }
  const published: Published[] = []
  for (const parent of ['packages', 'packages/adapters', 'packages/plugins']) {
    for (const name of await readdir(join(dir, parent))) {
      const file = join(dir, parent, name, 'package.json')
      if (!existsSync(file)) continue
      const manifest = JSON.parse(await readFile(file, 'utf8')) as { name: string; version: string }
      if (config.fixed[0]!.includes(manifest.name)) published.push({ name: manifest.name, version: manifest.version, dir: dirname(file) })
    }
  }
  return published
}
