import { statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BosunError } from '../errors.js'
import { coreMismatch } from './core-range.js'
import { maskCredentials } from './credentials.js'
import { missingExportHint } from './export-hint.js'
import { importLocalFile, importModule } from './import-module.js'
import { esmResolve } from './node-resolve.js'
import { notFoundMessage } from './not-found.js'
import { thrownAt } from './thrown-at.js'
import type { BundledModules, EntryKind } from './types.js'

/** Imports modules named by a config, resolving from the config file's folder. */
export interface ModuleLoader {
  readonly dir: string
  readonly parentURL: string
  /** Copies a caller ships, used for package names that do not resolve from `dir`. */
  readonly bundled: BundledModules
}

/** What importing an entry gave. */
export type Imported =
  | { ok: true; specifier: string; value: unknown; namedExports?: string[] }
  | { ok: false; message: string; cause?: unknown }

/**
 * A loader for one config folder. Names resolve like Node's `import` from that folder (so the
 * user's `node_modules` is searched, then the ones above it; see node-resolve.ts), and TypeScript
 * loads through jiti, so a `./my-plugin.ts` next to the config works without a build (see
 * import-module.ts). `bundled` modules stand in for packages the folder does not have.
 */
export function createModuleLoader(dir: string, bundled: BundledModules = {}): ModuleLoader {
  const parentURL = pathToFileURL(join(dir, 'bosun.config.js')).href
  return { dir, parentURL, bundled }
}

/** `./x`, `../x` and absolute paths name files; anything else names a package. */
export function isPathEntry(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../') || name === '.' || name === '..' || isAbsolute(name)
}

/**
 * The package names tried for an entry, in order:
 * plugins and stores: `x` → `@bosun/plugin-x`, `bosun-plugin-x`; `@acme/x` → `@acme/bosun-plugin-x`;
 * adapters: the same with `adapter`; full names (`bosun-plugin-x`, `@acme/bosun-plugin-x`,
 * `@bosun/…`) and tool modules as written.
 */
export function candidatePackages(name: string, kind: EntryKind): string[] {
  if (kind === 'tool') return [name]
  const prefix = kind === 'adapter' ? 'adapter' : 'plugin'
  const [pkg, subpath] = splitSpecifier(name)
  if (pkg.startsWith('@')) {
    const [scope, base = ''] = pkg.split('/')
    if (scope === '@bosun' || base.startsWith(`bosun-${prefix}-`)) return [name]
    return [`${scope}/bosun-${prefix}-${base}${subpath}`]
  }
  if (pkg.startsWith(`bosun-${prefix}-`)) return [name]
  return [`@bosun/${prefix}-${pkg}${subpath}`, `bosun-${prefix}-${pkg}${subpath}`]
}

/**
 * Finds and imports the module an entry names: from the config's folder first, then among the
 * bundled copies. Every failure says what was tried and why; a name that is nowhere gets a "did
 * you mean" (see {@link notFoundMessage}).
 */
export async function importEntry(loader: ModuleLoader, name: string, kind: EntryKind): Promise<Imported> {
  if (isPathEntry(name)) {
    const file = resolve(loader.dir, name)
    const found = esmResolve(file, loader.parentURL)
    if (found === undefined) {
      if (isFolder(file)) {
        return { ok: false, message: `is a folder (${file}): a path entry names the module's file — its built entry, e.g. ${name.replace(/\/+$/, '')}/dist/index.js — or install the package and give its name.` }
      }
      return { ok: false, message: `cannot be found: there is no file at ${file} (paths resolve from the config file's folder).` }
    }
    return load(name, found, importLocalFile, true)
  }
  const tried = candidatePackages(name, kind)
  for (const specifier of tried) {
    const found = esmResolve(specifier, loader.parentURL)
    if (found === undefined) continue
    // A plugin made for another core would fail in ways that name neither version: refuse it here.
    const mismatch = coreMismatch(found, packageOf(specifier))
    if (mismatch !== undefined) return { ok: false, message: mismatch }
    return load(specifier, found)
  }
  const specifier = tried.find((candidate) => Object.hasOwn(loader.bundled, candidate))
  if (specifier !== undefined) return loadBundled(specifier, loader.bundled[specifier]!)
  return { ok: false, message: notFoundMessage({ name, kind, tried, dir: loader.dir, bundled: Object.keys(loader.bundled) }) }
}

/**
 * One line for an underlying error: its name and the first paragraph of its message (no code
 * frames), with anything that looks like a credential masked — a module's message may quote the
 * option that holds one.
 */
export function summarizeError(error: unknown): string {
  if (!(error instanceof Error)) return maskCredentials(String(error))
  const paragraph = error.message.split(/\n\s*\n/)[0] ?? ''
  const text = paragraph.replace(/\s*\n\s*/g, ' ').trim()
  // A BosunError's message is written for the user already ("openai(): OpenAI needs an API key…"):
  // its class name adds nothing. Other classes say what kind of failure it was (TypeError…).
  const plain = text.startsWith(`${error.name}:`) || error.name === 'Error' || BosunError.is(error)
  return maskCredentials(plain ? text : `${error.name}: ${text}`)
}

/** The module's default export; for a CommonJS module, `module.exports`. */
export function defaultExport(namespace: unknown): { value: unknown; namedExports?: string[] } {
  if (typeof namespace !== 'object' || namespace === null) return { value: namespace }
  if ('default' in namespace) return { value: (namespace as { default: unknown }).default }
  const esm = (namespace as { __esModule?: boolean }).__esModule === true || Object.prototype.toString.call(namespace) === '[object Module]'
  return esm ? { value: undefined, namedExports: Object.keys(namespace) } : { value: namespace }
}

/**
 * Imports an entry's module. `local`: a file of the project (a path entry), whose wrong import of
 * a Bosun name is the user's to fix — the hint names the module and where the name is.
 */
async function load(specifier: string, resolved: string, importer: (file: string) => Promise<unknown> = importModule, local = false): Promise<Imported> {
  const file = resolved.startsWith('file:') ? fileURLToPath(resolved) : resolved
  let namespace: unknown
  try {
    namespace = await importer(file)
  } catch (error) {
    // A file of the project's that threw as it ran: where (an installed package's code is not the user's to fix).
    const at = local ? thrownAt(error, dirname(file)) : undefined
    const summary = `${summarizeError(error)}${at === undefined ? '' : ` (thrown at ${at})`}`
    const hint = missingPackageHint(error, specifier) || (local ? await missingExportHint(file) : '')
    const stop = hint !== '' && !/[.!?]$/.test(summary) ? '.' : ''
    return { ok: false, message: `${specifier} failed to load: ${summary}${stop}${hint}`, cause: error }
  }
  return { ok: true, specifier, ...defaultExport(namespace) }
}

/**
 * What to do when the module imports a package that is not installed — say a local
 * `./guard.mjs` importing `@bosun/core` in a folder where only the `bosun` CLI is: the CLI's own
 * copies serve the names a config gives, not the imports of the config's modules. When the
 * import was made by an installed package (a dependency it lacks), that package is named and
 * reinstalled instead: installing its dependency into the project is not the cure.
 */
export function missingPackageHint(error: unknown, specifier: string): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return ''
  const message = String((error as Error).message)
  const name = /Cannot find (?:module|package) '([^']+)'/.exec(message)?.[1]
  if (name === undefined || name.startsWith('.') || isAbsolute(name) || name.startsWith('file:') || name.startsWith('node:')) return ''
  const pkg = packageOf(name)
  const importer = /imported from (\S.*?)\s*$/m.exec(message)?.[1] ?? /Require stack:\s*\n- (.+)/.exec(message)?.[1]
  const owner = importer === undefined ? undefined : installedPackageOf(importer)
  if (owner !== undefined && owner !== pkg) return ` ${owner} imports ${pkg}, which is not installed beside it: reinstall ${owner} (npm install ${owner}), which brings its dependencies.`
  return ` ${specifier} imports ${pkg}, which is not installed where it can be found: install it in the project (npm install ${pkg}).`
}

/** The installed package a file is in (`…/node_modules/@a/b/lib/x.js` → `@a/b`); undefined outside node_modules. */
function installedPackageOf(file: string): string | undefined {
  const path = file.trim().replace(/\\/g, '/')
  const at = path.lastIndexOf('/node_modules/')
  return at === -1 ? undefined : packageOf(path.slice(at + '/node_modules/'.length))
}

async function loadBundled(specifier: string, importModule: () => Promise<unknown>): Promise<Imported> {
  let namespace: unknown
  try {
    namespace = await importModule()
  } catch (error) {
    return { ok: false, message: `${specifier} failed to load: ${summarizeError(error)}`, cause: error }
  }
  return { ok: true, specifier, ...defaultExport(namespace) }
}

/** `@a/b/c` → [`@a/b`, `/c`]; `a/c` → [`a`, `/c`]. */
function splitSpecifier(name: string): [string, string] {
  const parts = name.split('/')
  const length = name.startsWith('@') ? 2 : 1
  return [parts.slice(0, length).join('/'), parts.length > length ? `/${parts.slice(length).join('/')}` : '']
}

/** `@a/b/c` → `@a/b`; `a/c` → `a`. */
export function packageOf(specifier: string): string {
  return splitSpecifier(specifier)[0]
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
