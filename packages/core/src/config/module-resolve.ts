import { readFileSync, realpathSync, statSync, type Stats } from 'node:fs'
import { builtinModules } from 'node:module'
import { sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * Node's ESM resolution (`moduleResolve`) as jiti 2.7.0 runs it: the copy of Node's resolver that
 * `import-meta-resolve` makes and `mlly` bundles into jiti, with the conditions a caller gives —
 * Node 20 offers no resolver from another folder without a flag (`import.meta.resolve`'s parent).
 * Ported step by step, quirks included (an object target that matches no condition is `null`, a
 * package not found anywhere fails an assertion), because node-resolve.ts must answer what jiti
 * answers; its tests compare the two. Left out: the deprecation warnings Node emits for some
 * targets and mains, and the package.json cache (jiti's lasts the process; these are read afresh).
 * MIT: Node.js contributors; import-meta-resolve, Titus Wormer.
 */

/** The errors a resolution attempt ends with; jiti (mlly) tries the next candidate after these, and gives up its condition set after any other. */
export const NOT_FOUND_CODES = new Set(['ERR_MODULE_NOT_FOUND', 'ERR_UNSUPPORTED_DIR_IMPORT', 'MODULE_NOT_FOUND', 'ERR_PACKAGE_PATH_NOT_EXPORTED'])

class ResolveError extends Error {
  constructor(readonly code: string, message: string) {
    super(message)
  }
}

const notFound = (what: string): ResolveError => new ResolveError('ERR_MODULE_NOT_FOUND', `Cannot find ${what}`)
const invalidTarget = (target: unknown): ResolveError => new ResolveError('ERR_INVALID_PACKAGE_TARGET', `Invalid package target ${JSON.stringify(target)}`)
const notExported = (subpath: string): ResolveError => new ResolveError('ERR_PACKAGE_PATH_NOT_EXPORTED', `Package subpath '${subpath}' is not exported`)
const invalidSpecifier = (specifier: string): ResolveError => new ResolveError('ERR_INVALID_MODULE_SPECIFIER', `Invalid module specifier ${specifier}`)
const invalidConfig = (file: string): ResolveError => new ResolveError('ERR_INVALID_PACKAGE_CONFIG', `Invalid package config ${file}`)

interface PackageConfig {
  pjsonPath: string
  exists: boolean
  name?: string
  main?: string
  exports?: unknown
  imports?: unknown
  type?: string
}

const INVALID_SEGMENT = /(^|\\|\/)((\.|%2e)(\.|%2e)?|(n|%6e|%4e)(o|%6f|%4f)(d|%64|%44)(e|%65|%45)(_|%5f)(m|%6d|%4d)(o|%6f|%4f)(d|%64|%44)(u|%75|%55)(l|%6c|%4c)(e|%65|%45)(s|%73|%53))?(\\|\/|$)/i
const DEPRECATED_INVALID_SEGMENT = /(^|\\|\/)((\.|%2e)(\.|%2e)?|(n|%6e|%4e)(o|%6f|%4f)(d|%64|%44)(e|%65|%45)(_|%5f)(m|%6d|%4d)(o|%6f|%4f)(d|%64|%44)(u|%75|%55)(l|%6c|%4c)(e|%65|%45)(s|%73|%53))(\\|\/|$)/i
const INVALID_PACKAGE_NAME = /^\.|%|\\/
const ENCODED_SEPARATOR = /%2f|%5c/i

/** `moduleResolve(specifier, base, conditions)`: the URL a specifier names, or throws with a `code`. */
export function moduleResolve(specifier: string, base: URL, conditions: ReadonlySet<string>): URL {
  let resolved: URL | undefined
  if (specifier !== '' && (specifier.startsWith('/') || isRelativeSpecifier(specifier))) {
    try {
      resolved = new URL(specifier, base)
    } catch {
      throw new ResolveError('ERR_UNSUPPORTED_RESOLVE_REQUEST', `Failed to resolve module specifier "${specifier}"`)
    }
  } else if (base.protocol === 'file:' && specifier.startsWith('#')) {
    resolved = packageImportsResolve(specifier, base, conditions)
  } else {
    try {
      resolved = new URL(specifier)
    } catch {
      resolved = packageResolve(specifier, base, conditions)
    }
  }
  if (resolved === undefined) throw new ResolveError('ERR_ASSERTION', 'expected to be defined')
  return resolved.protocol === 'file:' ? finalizeResolution(resolved) : resolved
}

function isRelativeSpecifier(specifier: string): boolean {
  if (specifier[0] !== '.') return false
  if (specifier.length === 1 || specifier[1] === '/') return true
  return specifier[1] === '.' && (specifier.length === 2 || specifier[2] === '/')
}

function finalizeResolution(url: URL): URL {
  if (ENCODED_SEPARATOR.test(url.pathname)) throw invalidSpecifier(url.pathname)
  const path = fileURLToPath(url)
  // `slice(-1)`, not `slice(0, -1)`: the port's, so a path ending in a slash stats '/'.
  const stats = tryStat(path.endsWith('/') ? path.slice(-1) : path)
  if (stats?.isDirectory() === true) throw new ResolveError('ERR_UNSUPPORTED_DIR_IMPORT', `Directory import '${path}' is not supported`)
  if (stats?.isFile() !== true) throw notFound(`module '${path}'`)
  const real = pathToFileURL(realpathSync(path) + (path.endsWith(sep) ? '/' : ''))
  real.search = url.search
  real.hash = url.hash
  return real
}

function packageResolve(specifier: string, base: URL, conditions: ReadonlySet<string>): URL | undefined {
  if (builtinModules.includes(specifier)) return new URL(`node:${specifier}`)
  let separator = specifier.indexOf('/')
  let valid = true
  const scoped = specifier.startsWith('@')
  if (scoped) {
    if (separator === -1) valid = false
    else separator = specifier.indexOf('/', separator + 1)
  }
  const name = separator === -1 ? specifier : specifier.slice(0, separator)
  if (INVALID_PACKAGE_NAME.test(name)) valid = false
  if (!valid) throw invalidSpecifier(specifier)
  const subpath = `.${separator === -1 ? '' : specifier.slice(separator)}`

  const scope = packageScopeConfig(base)
  if (scope.exists && scope.name === name && scope.exports !== undefined && scope.exports !== null) {
    return packageExportsResolve(pathToFileURL(scope.pjsonPath), subpath, scope, conditions)
  }
  let url = new URL(`./node_modules/${name}/package.json`, base)
  let path = fileURLToPath(url)
  let last: string
  do {
    const stats = tryStat(path.slice(0, -13))
    if (stats?.isDirectory() !== true) {
      last = path
      url = new URL(`${scoped ? '../../../../node_modules/' : '../../../node_modules/'}${name}/package.json`, url)
      path = fileURLToPath(url)
      continue
    }
    const config = readPackage(path)
    if (config.exports !== undefined && config.exports !== null) return packageExportsResolve(url, subpath, config, conditions)
    return subpath === '.' ? legacyMainResolve(url, config) : new URL(subpath, url)
  } while (path.length !== last.length)
  return undefined
}

function packageScopeConfig(base: URL): PackageConfig {
  let url = new URL('package.json', base)
  for (;;) {
    if (url.pathname.endsWith('node_modules/package.json')) break
    const config = readPackage(fileURLToPath(url))
    if (config.exists) return config
    const last = url
    url = new URL('../package.json', url)
    if (url.pathname === last.pathname) break
  }
  return { pjsonPath: fileURLToPath(url), exists: false }
}

function readPackage(pjsonPath: string): PackageConfig {
  let text: string | undefined
  try {
    text = readFileSync(pjsonPath, 'utf8')
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error
  }
  const config: PackageConfig = { pjsonPath, exists: false }
  if (text === undefined) return config
  let parsed: Record<string, unknown>
  try {
    parsed = JSON.parse(text) as Record<string, unknown>
  } catch {
    throw invalidConfig(pjsonPath)
  }
  config.exists = true
  // Object.hasOwn throws on a package.json of `null` as the port's hasOwnProperty.call does.
  if (Object.hasOwn(parsed, 'name') && typeof parsed.name === 'string') config.name = parsed.name
  if (Object.hasOwn(parsed, 'main') && typeof parsed.main === 'string') config.main = parsed.main
  if (Object.hasOwn(parsed, 'exports')) config.exports = parsed.exports
  if (Object.hasOwn(parsed, 'imports')) config.imports = parsed.imports
  if (Object.hasOwn(parsed, 'type') && typeof parsed.type === 'string') config.type = parsed.type
  return config
}

/**
 * The `type` of the package a file belongs to, as Node finds it to tell the file's format: the
 * nearest package.json at or above it, not past a `node_modules` folder. `undefined` for none, no
 * `type`, or a package.json that cannot be read.
 */
export function packageTypeOf(file: string): string | undefined {
  try {
    return packageScopeConfig(pathToFileURL(file)).type
  } catch {
    return undefined
  }
}

function legacyMainResolve(pjsonURL: URL, config: PackageConfig): URL {
  const tries = config.main === undefined ? [] : [config.main, ...['.js', '.json', '.node', '/index.js', '/index.json', '/index.node'].map((ext) => `./${config.main}${ext}`)]
  for (const candidate of [...tries, './index.js', './index.json', './index.node']) {
    const url = new URL(candidate, pjsonURL)
    if (statSync(url, { throwIfNoEntry: false })?.isFile() === true) return url
  }
  throw notFound(`package '${fileURLToPath(new URL('.', pjsonURL))}'`)
}

function packageExportsResolve(pjsonURL: URL, subpath: string, config: PackageConfig, conditions: ReadonlySet<string>): URL {
  let exports = config.exports
  if (isConditionalSugar(exports, pjsonURL)) exports = { '.': exports }
  const map = exports as Record<string, unknown>
  if (Object.hasOwn(Object(map), subpath) && !subpath.includes('*') && !subpath.endsWith('/')) {
    const resolved = resolvePackageTarget(pjsonURL, map[subpath], '', subpath, false, false, conditions)
    if (resolved === null || resolved === undefined) throw notExported(subpath)
    return resolved
  }
  const [bestMatch, bestMatchSubpath] = bestPattern(Object.getOwnPropertyNames(Object(map)), subpath, (key, star) => key.slice(0, star))
  if (bestMatch !== '') {
    const resolved = resolvePackageTarget(pjsonURL, map[bestMatch], bestMatchSubpath, bestMatch, true, false, conditions)
    if (resolved === null || resolved === undefined) throw notExported(subpath)
    return resolved
  }
  throw notExported(subpath)
}

function isConditionalSugar(exports: unknown, pjsonURL: URL): boolean {
  if (typeof exports === 'string' || Array.isArray(exports)) return true
  if (typeof exports !== 'object' || exports === null) return false
  let sugar = false
  let index = 0
  for (const key of Object.getOwnPropertyNames(exports)) {
    const condition = key === '' || key[0] !== '.'
    if (index++ === 0) sugar = condition
    else if (sugar !== condition) throw invalidConfig(fileURLToPath(pjsonURL))
  }
  return sugar
}

/** The `*` key that matches `subpath` most specifically, and what its `*` stands for; `''` for none. */
function bestPattern(keys: string[], subpath: string, prefixOf: (key: string, star: number) => string): [string, string] {
  let best = ''
  let match = ''
  for (const key of keys) {
    const star = key.indexOf('*')
    if (star === -1 || !subpath.startsWith(prefixOf(key, star))) continue
    const trailer = key.slice(star + 1)
    if (subpath.length >= key.length && subpath.endsWith(trailer) && patternKeyCompare(best, key) === 1 && key.lastIndexOf('*') === star) {
      best = key
      match = subpath.slice(star, subpath.length - trailer.length)
    }
  }
  return [best, match]
}

function patternKeyCompare(a: string, b: string): number {
  const aStar = a.indexOf('*')
  const bStar = b.indexOf('*')
  const aBase = aStar === -1 ? a.length : aStar + 1
  const bBase = bStar === -1 ? b.length : bStar + 1
  if (aBase > bBase) return -1
  if (bBase > aBase) return 1
  if (aStar === -1) return 1
  if (bStar === -1) return -1
  if (a.length > b.length) return -1
  if (b.length > a.length) return 1
  return 0
}

function resolvePackageTarget(pjsonURL: URL, target: unknown, subpath: string, key: string, pattern: boolean, internal: boolean, conditions: ReadonlySet<string>): URL | null | undefined {
  if (typeof target === 'string') return resolvePackageTargetString(target, subpath, pjsonURL, pattern, internal, conditions)
  if (Array.isArray(target)) {
    if (target.length === 0) return null
    let lastError: unknown
    for (const each of target) {
      let resolved: URL | null | undefined
      try {
        resolved = resolvePackageTarget(pjsonURL, each, subpath, key, pattern, internal, conditions)
      } catch (error) {
        lastError = error
        if ((error as { code?: unknown }).code === 'ERR_INVALID_PACKAGE_TARGET') continue
        throw error
      }
      if (resolved === undefined) continue
      if (resolved !== null) return resolved
      lastError = null
    }
    if (lastError === undefined || lastError === null) return null
    throw lastError
  }
  if (typeof target === 'object' && target !== null) {
    const keys = Object.getOwnPropertyNames(target)
    if (keys.some(isArrayIndex)) throw invalidConfig(fileURLToPath(pjsonURL))
    for (const condition of keys) {
      if (condition !== 'default' && !conditions.has(condition)) continue
      const resolved = resolvePackageTarget(pjsonURL, (target as Record<string, unknown>)[condition], subpath, key, pattern, internal, conditions)
      if (resolved === undefined) continue
      return resolved
    }
    // Node says `undefined` here; the port says `null`, which an array's fallbacks read differently.
    return null
  }
  if (target === null) return null
  throw invalidTarget(target)
}

function isArrayIndex(key: string): boolean {
  const number = Number(key)
  return `${number}` === key && number >= 0 && number < 0xffff_ffff
}

function resolvePackageTargetString(target: string, subpath: string, pjsonURL: URL, pattern: boolean, internal: boolean, conditions: ReadonlySet<string>): URL | undefined {
  if (subpath !== '' && !pattern && !target.endsWith('/')) throw invalidTarget(target)
  if (!target.startsWith('./')) {
    if (internal && !target.startsWith('../') && !target.startsWith('/')) {
      let isURL = false
      try {
        new URL(target)
        isURL = true
      } catch {
        // not a URL: a package name
      }
      if (!isURL) return packageResolve(pattern ? target.replace(/\*/g, () => subpath) : target + subpath, pjsonURL, conditions)
    }
    throw invalidTarget(target)
  }
  if (INVALID_SEGMENT.test(target.slice(2)) && DEPRECATED_INVALID_SEGMENT.test(target.slice(2))) throw invalidTarget(target)
  const resolved = new URL(target, pjsonURL)
  if (!resolved.pathname.startsWith(new URL('.', pjsonURL).pathname)) throw invalidTarget(target)
  if (subpath === '') return resolved
  if (INVALID_SEGMENT.test(subpath) && DEPRECATED_INVALID_SEGMENT.test(subpath)) throw invalidSpecifier(subpath)
  return pattern ? new URL(resolved.href.replace(/\*/g, () => subpath)) : new URL(subpath, resolved)
}

function packageImportsResolve(name: string, base: URL, conditions: ReadonlySet<string>): URL {
  if (name === '#' || name.startsWith('#/') || name.endsWith('/')) throw invalidSpecifier(name)
  const scope = packageScopeConfig(base)
  if (scope.exists) {
    const pjsonURL = pathToFileURL(scope.pjsonPath)
    const imports = scope.imports as Record<string, unknown> | null | undefined
    if (imports) {
      if (Object.hasOwn(imports, name) && !name.includes('*')) {
        const resolved = resolvePackageTarget(pjsonURL, imports[name], '', name, false, true, conditions)
        if (resolved !== null && resolved !== undefined) return resolved
      } else {
        // `slice(0, -1)`, not `slice(0, star)`: the port's.
        const [bestMatch, bestMatchSubpath] = bestPattern(Object.getOwnPropertyNames(imports), name, (key) => key.slice(0, -1))
        if (bestMatch !== '') {
          const resolved = resolvePackageTarget(pjsonURL, imports[bestMatch], bestMatchSubpath, bestMatch, true, true, conditions)
          if (resolved !== null && resolved !== undefined) return resolved
        }
      }
    }
  }
  throw new ResolveError('ERR_PACKAGE_IMPORT_NOT_DEFINED', `Package import specifier "${name}" is not defined`)
}

function tryStat(path: string): Stats | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}
