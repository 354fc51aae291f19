import { existsSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Resolution of the names a config gives, as jiti resolved them, without loading jiti (~50 ms of
 * CPU on every command that reads a config; docs/benchmarks.md, "The CLI's start"). Node 20 has
 * no public ESM resolver from another folder (`import.meta.resolve`'s parent needs a flag), so the
 * package's `exports` are read here with jiti's conditions — `node` + `import`, then `node` +
 * `require` — and what has no `exports` goes to Node's own `require.resolve` from the config's
 * folder (`main`, extensions, `index`).
 */

/** Extensions tried for a path given without one, in jiti's order. */
const EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts', '.mtsx', '.ctsx']
const CONDITION_SETS = [['node', 'import'], ['node', 'require']]

/** A file a path names, as given, with an extension added, as a folder's index, or `x.js` written for `x.ts`. */
export function resolveFile(file: string, parentURL: string): string | undefined {
  if (isFile(file)) return file
  for (const candidate of [...EXTENSIONS.map((ext) => file + ext), ...EXTENSIONS.map((ext) => join(file, `index${ext}`))]) {
    if (isFile(candidate)) return candidate
  }
  const typescript = file.replace(/\.(c|m)?j(sx?)$/, '.$1t$2')
  if (typescript !== file && isFile(typescript)) return typescript
  // A folder with a package.json's `main`.
  return tryRequireResolve(file, parentURL)
}

/** The file a package specifier (`@a/b`, `@a/b/sub`) resolves to from `parentURL`'s folder. */
export function resolvePackage(specifier: string, parentURL: string): string | undefined {
  const [name, subpath] = splitPackage(specifier)
  const self = selfReference(name, fileURLToPath(parentURL))
  if (self !== undefined) return resolveExports(self.dir, self.exports, subpath)
  for (const folder of nodeModulesAbove(dirname(fileURLToPath(parentURL)))) {
    const dir = join(folder, name)
    const manifest = readManifest(join(dir, 'package.json'))
    if (manifest === undefined) continue
    // Node stops at the first folder that has the package, found or not.
    if (manifest.exports !== undefined && manifest.exports !== null) return resolveExports(dir, manifest.exports, subpath)
    return subpath === '.' ? tryRequireResolve(dir, parentURL) : resolveFile(join(dir, subpath), parentURL)
  }
  return undefined
}

/**
 * The `node_modules` folders an `import` from `dir` searches, nearest first — and only those:
 * not `NODE_PATH` nor the global folders (`~/.node_modules`, `$PREFIX/lib/node`) that
 * `require.resolve.paths` adds, which Node's ESM resolution never reads. (A test runner started by
 * pnpm sets `NODE_PATH` to its store's `node_modules`: a package the project never installed
 * resolved from there.)
 */
function nodeModulesAbove(dir: string): string[] {
  const folders: string[] = []
  for (let at = dir; ; at = dirname(at)) {
    if (basename(at) !== 'node_modules') folders.push(join(at, 'node_modules'))
    if (dirname(at) === at) return folders
  }
}

/** A package's `exports` for one subpath (`.` or `./x`), with conditions, patterns and fallbacks. */
function resolveExports(dir: string, exports: unknown, subpath: string): string | undefined {
  const map = typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports as object).some((key) => key.startsWith('.'))
    ? (exports as Record<string, unknown>)
    : { '.': exports }
  let target: unknown
  let match = ''
  if (Object.hasOwn(map, subpath) && !subpath.includes('*')) target = map[subpath]
  else {
    // The pattern with the longest prefix wins (Node's PATTERN_KEY_COMPARE).
    const keys = Object.keys(map).filter((key) => {
      const star = key.indexOf('*')
      if (star === -1 || key.indexOf('*', star + 1) !== -1) return false
      const prefix = key.slice(0, star)
      const suffix = key.slice(star + 1)
      return subpath.startsWith(prefix) && subpath !== prefix && subpath.length >= key.length && subpath.endsWith(suffix)
    })
    keys.sort((a, b) => b.indexOf('*') - a.indexOf('*') || b.length - a.length)
    const key = keys[0]
    if (key === undefined) return undefined
    const star = key.indexOf('*')
    match = subpath.slice(star, subpath.length - (key.length - star - 1))
    target = map[key]
  }
  for (const conditions of CONDITION_SETS) {
    const found = resolveTarget(dir, target, match, conditions)
    if (typeof found === 'string' && isFile(found)) return found
  }
  return undefined
}

/**
 * A target's file for these conditions, as Node picks it: the first valid target of an array
 * (valid, not existing: a missing file is not skipped), the first matching condition of an
 * object; `null` where the package excludes the subpath, `undefined` where nothing matches.
 */
function resolveTarget(dir: string, target: unknown, match: string, conditions: string[]): string | null | undefined {
  if (typeof target === 'string') return target.startsWith('./') ? join(dir, target.replaceAll('*', match)) : undefined
  if (Array.isArray(target)) {
    for (const each of target) {
      const found = resolveTarget(dir, each, match, conditions)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof target === 'object' && target !== null) {
    for (const [condition, value] of Object.entries(target)) {
      if (condition !== 'default' && !conditions.includes(condition)) continue
      const found = resolveTarget(dir, value, match, conditions)
      if (found !== undefined) return found
    }
    return undefined
  }
  return target === null ? null : undefined
}

/** A package importing itself by name: the nearest package.json above the config names it and has `exports`. */
function selfReference(name: string, from: string): { dir: string; exports: unknown } | undefined {
  const nearest = nearestManifest(dirname(from))
  if (nearest === undefined || nearest.manifest.name !== name || nearest.manifest.exports == null) return undefined
  return { dir: nearest.dir, exports: nearest.manifest.exports }
}

/** What Node reads of a package.json. */
export interface Manifest {
  name?: unknown
  type?: unknown
  exports?: unknown
}

/** The nearest package.json at or above a folder (the package a file there belongs to), as Node finds it. */
export function nearestManifest(from: string): { dir: string; manifest: Manifest } | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return { dir, manifest: readManifest(join(dir, 'package.json')) ?? {} }
    if (dirname(dir) === dir) return undefined
  }
}

function readManifest(file: string): Manifest | undefined {
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest
  } catch {
    return undefined
  }
}

function tryRequireResolve(request: string, parentURL: string): string | undefined {
  try {
    return createRequire(parentURL).resolve(request)
  } catch {
    return undefined
  }
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() === true
}

/** `@a/b/c` → [`@a/b`, `./c`]; `a` → [`a`, `.`]. */
function splitPackage(specifier: string): [string, string] {
  const parts = specifier.split('/')
  const length = specifier.startsWith('@') ? 2 : 1
  const rest = parts.slice(length).join('/')
  return [parts.slice(0, length).join('/'), rest === '' ? '.' : `./${rest}`]
}
