import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { marketplaceError } from './errors.js'
import type { PackageManagerEnv } from './install-env.js'
import { shownUrl } from './npm-config.js'

export type PackageManagerName = 'npm' | 'pnpm' | 'yarn'

/** The project's package manager and the folder it runs in. */
export interface PackageManager {
  name: PackageManagerName
  /** The project root: the folder of the lockfile, else of the nearest package.json. */
  dir: string
  /** How it was decided, for the user: `pnpm-lock.yaml`, `packageManager in package.json`, `no lockfile: npm`. */
  reason: string
}

const LOCKFILES: [string, PackageManagerName][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
]

/**
 * The package manager a project uses, from its lockfile (the nearest folder up from `cwd` that
 * has one), else from `packageManager` in the nearest package.json, else npm. Integrity stays the
 * package manager's: it installs and checks against its own lockfile.
 */
export function detectPackageManager(cwd: string): PackageManager {
  let nearestManifest: string | undefined
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const [file, name] of LOCKFILES) if (existsSync(join(dir, file))) return { name, dir, reason: file }
    if (nearestManifest === undefined && existsSync(join(dir, 'package.json'))) nearestManifest = dir
    if (dirname(dir) === dir) break
  }
  if (nearestManifest !== undefined) {
    try {
      const field = (JSON.parse(readFileSync(join(nearestManifest, 'package.json'), 'utf8')) as { packageManager?: unknown }).packageManager
      const name = typeof field === 'string' ? /^(npm|pnpm|yarn)@/.exec(field)?.[1] : undefined
      if (name) return { name: name as PackageManagerName, dir: nearestManifest, reason: 'packageManager in package.json' }
    } catch {
      // a broken package.json: npm will say so
    }
  }
  return { name: 'npm', dir: nearestManifest ?? cwd, reason: 'no lockfile' }
}

/** The command line that installs `spec` (`name@version`) or removes `name`. */
export function packageManagerArgs(manager: PackageManagerName, action: 'add' | 'remove', spec: string, registry: string | undefined): string[] {
  const verb = action === 'add' ? (manager === 'npm' ? 'install' : 'add') : manager === 'npm' ? 'uninstall' : 'remove'
  return [verb, spec, ...(registry !== undefined && action === 'add' ? [`--registry=${registry}`] : [])]
}

/** The arguments as printed: a `--registry=` URL without its credentials. */
export function shownArgs(args: readonly string[]): string {
  return args.map((arg) => (arg.startsWith('--registry=') ? `--registry=${shownUrl(arg.slice('--registry='.length))}` : arg)).join(' ')
}

/**
 * Runs the package manager in the project root with `env` — made by `installEnvFor`, without the
 * user's secrets, since install scripts read it — and what it prints goes to `log` (the CLI's
 * stderr). Resolves when it has exited and both pipes have closed; fails with `INSTALL_FAILED` otherwise.
 */
export function runPackageManager(manager: PackageManager, args: readonly string[], env: PackageManagerEnv, log: (text: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(manager.name, args, { cwd: manager.dir, env: env.env, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.setEncoding('utf8').on('data', log)
    child.stderr.setEncoding('utf8').on('data', log)
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(marketplaceError('INSTALL_FAILED', `cannot run ${manager.name} (${error.code ?? error.message}). Is it installed and on PATH?`)),
    )
    child.once('close', (code, signal) => {
      if (code === 0) resolve()
      else reject(marketplaceError('INSTALL_FAILED', `${manager.name} ${shownArgs(args)} ${signal ? `was killed by ${signal}` : `exited ${code}`}; its output is above.`))
    })
  })
}
