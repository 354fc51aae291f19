import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { packageTypeOf } from './module-resolve.js'

/**
 * Imports a module a config loads (the config file itself, or a package it names; a file it names
 * by path goes to {@link importLocalFile}): JavaScript whose format Node knows from its name (`.mjs`, `.cjs`, `.js` in a
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
export async function importModule(file: string, options: { fresh?: boolean; lenient?: boolean } = {}): Promise<unknown> {
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
    // `lenient` (the user's own config file): also what Node refuses to link and jiti accepts.
    if (!transpilable(error) && !(options.lenient === true && unlinkable(error))) throw error
    return importWithJiti(file, options)
  }
}

/**
 * Imports a file of the user's that a config names by path (`./tools/clock.mjs`) with jiti, as
 * it always was: jiti accepts what Node's `import()` refuses — an extensionless or directory
 * import (`./helper`, `./lib`), a package found only on NODE_PATH, a named import Node cannot
 * see in a CommonJS file, a JSON import without `with { type: 'json' }` — and such a file has no
 * package whose publishing made it run under Node. Installed packages go to {@link importModule}.
 */
export function importLocalFile(file: string): Promise<unknown> {
  return importWithJiti(file, {})
}

/** Whether Node loads the file as it is, without guessing its format. */
function nativeFormat(file: string): boolean {
  if (/\.(mjs|cjs)$/.test(file)) return true
  if (!file.endsWith('.js')) return false
  const type = packageTypeOf(file)
  return type === 'module' || type === 'commonjs'
}

const require = createRequire(import.meta.url)
let loads = 0

async function importWithJiti(file: string, options: { fresh?: boolean }): Promise<unknown> {
  const { createJiti } = await import('jiti')
  const jiti = createJiti(pathToFileURL(file).href, { interopDefault: false, ...(options.fresh === true ? { moduleCache: false } : {}) })
  return jiti.import(file)
}

/**
 * What Node refuses while linking an ES module's static imports — before any of its code runs —
 * and jiti accepts (see {@link importLocalFile}). (A dynamic `import()` the module's code makes
 * fails with the same codes after code ran; a config file that does so and fails is run again by
 * jiti: a config's top level is expected to be declarations.)
 */
function unlinkable(error: unknown): boolean {
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown }
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_UNSUPPORTED_DIR_IMPORT' || code === 'ERR_IMPORT_ASSERTION_TYPE_MISSING' || code === 'ERR_IMPORT_ATTRIBUTE_MISSING') return true
  return name === 'SyntaxError' && /does not provide an export named/.test(String(message))
}

function transpilable(error: unknown): boolean {
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown }
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION') return true
  return name === 'SyntaxError' && /Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module/.test(String(message))
}
