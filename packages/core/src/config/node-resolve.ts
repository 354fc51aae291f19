import { lstatSync, statSync } from 'node:fs'
import { builtinModules, createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { moduleResolve, NOT_FOUND_CODES } from './module-resolve.js'

/**
 * What `createJiti(parentURL).esmResolve(id, { parentURL, try: true })` answers (jiti 2.7.0,
 * `jitiResolve` in its src/resolve.ts), without loading jiti: ~75–105 ms of CPU on every command
 * that reads a config (docs/benchmarks.md, "The CLI's start"). In jiti's order:
 *
 * 1. an id in `node_modules/jiti/` or `node_modules/typescript/` is answered as it is;
 * 2. Node's ESM resolution (module-resolve.ts) from the config's folder: its `node_modules` and
 *    the ones above it, never `NODE_PATH`; the conditions `node` + `import`, then `node` +
 *    `require`; for each of four parent URLs the id as given, then with jiti's extensions, then
 *    `/index` with them. An error other than "not found" ends that condition set at once;
 * 3. Node's `require.resolve` from the config file: CommonJS conditions (`require`, `node`,
 *    `default`), `main`, and also `NODE_PATH` and the global folders — so a package on `NODE_PATH`
 *    is found only when it can be required (pnpm sets `NODE_PATH` to its store for the scripts it
 *    runs: the CLI's own packages, which export `default`, are found from a folder with no
 *    `node_modules`; the SQLite store, which exports only `import`, is not);
 * 4. `require.resolve` from the config's folder of the id with each extension but `.js`, of
 *    `id/index` with it, and of a `.js` id written `.ts`.
 *
 * Read from jiti's dist/jiti.cjs; node-resolve.test.ts compares every case with jiti itself. The
 * jiti options that would change this are left at their defaults (`alias`, `tsconfigPaths`,
 * `extensions`, `nativeModules`; their JITI_* variables are not read).
 */
export function esmResolve(id: string, parentURL: string): string | undefined {
  const found = jitiResolve(id, parentURL)
  if (found === undefined) return undefined
  return found.startsWith('file://') ? found : pathToFileURL(normalizeSlash(found)).href
}

/** jiti's default `extensions`, in its order. */
const EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts', '.mtsx', '.ctsx']
const ADDITIONAL_EXTENSIONS = EXTENSIONS.filter((ext) => ext !== '.js')
const CONDITION_SETS = [new Set(['node', 'import']), new Set(['node', 'require'])]
const NATIVE_MODULES = /node_modules\/(typescript|jiti)\//
const JS_EXT = /\.(c|m)?j(sx?)$/
const BUILTINS = new Set(builtinModules)

function jitiResolve(id: string, parentURL: string): string | undefined {
  if (NATIVE_MODULES.test(id)) return id
  for (const conditions of CONDITION_SETS) {
    try {
      const found = resolvePath(id, parentURL, conditions)
      if (found) return found
    } catch {
      // jiti moves on to the next condition set.
    }
  }
  const require = createRequire(requireFrom(parentURL))
  try {
    return require.resolve(id)
  } catch {
    // then the extensions jiti adds
  }
  const paths = [dirname(urlToPath(parentURL))]
  const tryRequire = (request: string): string | undefined => {
    try {
      return require.resolve(request, { paths })
    } catch {
      return undefined
    }
  }
  for (const ext of ADDITIONAL_EXTENSIONS) {
    const found = tryRequire(id + ext) ?? tryRequire(`${id}/index${ext}`) ?? (JS_EXT.test(id) ? tryRequire(id.replace(JS_EXT, '.$1t$2')) : undefined)
    if (found !== undefined && found !== '') return found
  }
  return undefined
}

/** mlly's `resolvePathSync(id, { url: parentURL, conditions, extensions })`. */
function resolvePath(input: string, parentURL: string, conditions: ReadonlySet<string>): string | undefined {
  if (/(?:node|data|http|https):/.test(input)) return urlToPath(input)
  if (BUILTINS.has(input)) return `node:${input}`
  const id = input.startsWith('file://') ? urlToPath(input) : input
  if (ABSOLUTE.test(id)) {
    try {
      if (statSync(id).isFile()) return urlToPath(pathToFileURL(normalizeSlash(id)).href)
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error
    }
  }
  const parent = new URL(parentURL)
  const bases = [parent, new URL('./', parent), new URL(joinURL(parent.pathname, '_index.js'), parent), new URL('node_modules', parent)]
  for (const base of bases) {
    const found = tryModuleResolve(id, base, conditions) ?? withExtensions(id, base, conditions)
    if (found !== undefined) return urlToPath(pathToFileURL(urlToPath(found)).href)
  }
  throw Object.assign(new Error(`Cannot find module ${id}`), { code: 'ERR_MODULE_NOT_FOUND' })
}

function withExtensions(id: string, base: URL, conditions: ReadonlySet<string>): URL | undefined {
  for (const prefix of ['', '/index']) {
    for (const ext of EXTENSIONS) {
      const found = tryModuleResolve(joinURL(id, prefix) + ext, base, conditions)
      if (found !== undefined) return found
    }
  }
  return undefined
}

function tryModuleResolve(id: string, base: URL, conditions: ReadonlySet<string>): URL | undefined {
  try {
    return moduleResolve(id, base, conditions)
  } catch (error) {
    if (!NOT_FOUND_CODES.has((error as { code?: string } | undefined)?.code ?? '')) throw error
    return undefined
  }
}

/** pathe's `isAbsolute`. */
const ABSOLUTE = /^[/\\](?![/\\])|^[/\\]{2}(?!\.)|^[A-Za-z]:[/\\]/

/** ufo's `joinURL(base, segment)` for the one segment mlly gives (`''` or `'/index'`). */
function joinURL(base: string, segment: string): string {
  if (segment === '' || segment === '/') return base
  if (base === '') return segment
  return (base.endsWith('/') ? base : `${base}/`) + segment.replace(/^\.?\//, '')
}

/** mlly's `fileURLToPath`: a `file:` URL to its path, anything else as it is, slashes forward. */
function urlToPath(value: string | URL): string {
  return normalizeSlash(typeof value !== 'string' || value.startsWith('file://') ? fileURLToPath(value) : value)
}

function normalizeSlash(path: string): string {
  return path.replace(/\\/g, '/')
}

/** The file jiti's own `require` belongs to: the config file, or `_index.js` in it when that is a folder. */
function requireFrom(parentURL: string): string {
  const file = fileURLToPath(parentURL)
  try {
    return lstatSync(file).isDirectory() ? join(file, '_index.js') : file
  } catch {
    return file
  }
}
