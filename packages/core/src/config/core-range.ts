import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { satisfiesRange } from './semver.js'

/** The running `@bosun/core`'s version (its package.json sits two folders above this file, in `src/` and `dist/` alike). */
export const CORE_VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
  } catch {
    return '0.0.0'
  }
})()

/**
 * The `@bosun/core` range a package's manifest supports: `"bosun": { "core": "^0.1.0" }`, else its
 * `@bosun/core` peer range; `undefined` when it names neither (any core is accepted).
 */
export function declaredCoreRange(manifest: Record<string, unknown>): string | undefined {
  const bosun = manifest.bosun as { core?: unknown } | undefined
  if (typeof bosun === 'object' && bosun !== null && typeof bosun.core === 'string') return bosun.core
  const peer = (manifest.peerDependencies as Record<string, unknown> | undefined)?.['@bosun/core']
  return typeof peer === 'string' && !peer.startsWith('workspace:') ? peer : undefined
}

/** Whether the running core is in `range` (a range that does not parse is not satisfied). */
export function coreSatisfies(range: string, version = CORE_VERSION): boolean {
  return satisfiesRange(version, range)
}

/**
 * Why the package a config names cannot run on this core, or `undefined` when it can (or says
 * nothing). `file` is the module the name resolved to; its package.json is the nearest one above
 * it whose name is `packageName`.
 */
export function coreMismatch(file: string, packageName: string): string | undefined {
  const manifest = manifestOf(file, packageName)
  if (!manifest) return undefined
  const range = declaredCoreRange(manifest)
  if (range === undefined || coreSatisfies(range)) return undefined
  const version = typeof manifest.version === 'string' ? ` ${manifest.version}` : ''
  return (
    `${packageName}${version} supports @bosun/core ${range}, but the running @bosun/core is ${CORE_VERSION}. ` +
    `Install a version of ${packageName} made for @bosun/core ${CORE_VERSION} (see \`bosun plugins info ${packageName}\`), or a Bosun it supports.`
  )
}

function manifestOf(file: string, packageName: string): Record<string, unknown> | undefined {
  for (let dir = dirname(file.startsWith('file:') ? fileURLToPath(file) : file); ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json')
    if (existsSync(candidate)) {
      try {
        const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as Record<string, unknown>
        if (manifest.name === packageName) return manifest
      } catch {
        return undefined
      }
    }
    if (dirname(dir) === dir) return undefined
  }
}
