import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** A package found in a `node_modules` folder. */
export interface FoundPackage {
  name: string
  version: string | undefined
  /** The package's folder. */
  dir: string
}

/**
 * Finds `name` the way Node resolves a bare import from a file in `from`: in `from/node_modules`,
 * then in each parent folder's. Returns the first match, or `undefined`.
 */
export function findPackage(from: string, name: string): FoundPackage | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    const manifest = readManifest(candidate)
    if (manifest) return { name, version: manifest.version, dir: candidate }
    if (dirname(dir) === dir) return undefined
  }
}

/** The version of a package the CLI itself depends on (bundled with it). */
export function ownDependencyVersion(name: string): string | undefined {
  try {
    const require = createRequire(import.meta.url)
    return readManifest(dirname(require.resolve(`${name}/package.json`)))?.version
  } catch {
    return undefined
  }
}

/** The CLI's own version. */
export function cliVersion(): string {
  const manifest = readManifest(join(dirname(new URL(import.meta.url).pathname), '..'))
  return manifest?.version ?? '0.0.0'
}

/** Parsed `package.json` of a package folder, or `undefined` when there is none (or it is broken). */
export function readManifest(dir: string): Record<string, any> | undefined {
  const file = join(dir, 'package.json')
  if (!existsSync(file)) return undefined
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, any>) : undefined
  } catch {
    return undefined
  }
}
