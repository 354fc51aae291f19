import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * Imports a module a config loads (the config file itself, or a plugin it names by path or
 * package): JavaScript whose format Node knows from its name (`.mjs`, `.cjs`, `.js` in a
 * package that gives its `type`) with Node's own `import()`, the rest through jiti, imported only
 * then — importing jiti costs ~50 ms of CPU that a config of JSON, YAML or ESM and installed
 * packages does not need (docs/benchmarks.md, "The CLI's start"). A `.js` file in a package
 * without a `type` stays with jiti: Node would load it too, but warns on stderr when it holds
 * ESM syntax (MODULE_TYPELESS_PACKAGE_JSON), which jiti never did.
 *
 * `fresh`: evaluated anew on every call — a config file edited between two loads in one process
 * (`bosun plugins add` loads the file it edited to check it). Each such load of an ES module
 * stays in Node's module map: one per `loadConfig`, not per turn.
 */
export async function importModule(file: string, options: { fresh?: boolean } = {}): Promise<unknown> {
  // A CommonJS module is cached by its file, whatever the URL's query, and jiti requires one natively.
  if (options.fresh === true) delete require.cache[file]
  if (!nativeFormat(file)) return importWithJiti(file, options)
  const url = pathToFileURL(file)
  if (options.fresh === true) url.search = `bosun-load=${++loads}`
  try {
    return await import(url.href)
  } catch (error) {
    // Before any of its code ran, Node refused what jiti would transpile: ESM syntax in a module
    // Node reads as CommonJS, or an import of a `.ts` file. jiti loads those as it always did.
    if (!transpilable(error)) throw error
    return importWithJiti(file, options)
  }
}

/** Whether Node loads the file as it is, without guessing its format. */
function nativeFormat(file: string): boolean {
  if (/\.(mjs|cjs)$/.test(file)) return true
  if (!file.endsWith('.js')) return false
  const type = nearestPackageType(dirname(file))
  return type === 'module' || type === 'commonjs'
}

/** The `type` of the nearest package.json at or above a folder (the package a file there belongs to). */
function nearestPackageType(from: string): unknown {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown } | null)?.type
      } catch {
        return undefined
      }
    }
    if (dirname(dir) === dir) return undefined
  }
}

const require = createRequire(import.meta.url)
let loads = 0

async function importWithJiti(file: string, options: { fresh?: boolean }): Promise<unknown> {
  const { createJiti } = await import('jiti')
  const jiti = createJiti(pathToFileURL(file).href, { interopDefault: false, ...(options.fresh === true ? { moduleCache: false } : {}) })
  return jiti.import(file)
}

function transpilable(error: unknown): boolean {
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown }
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION') return true
  return name === 'SyntaxError' && /Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module/.test(String(message))
}
