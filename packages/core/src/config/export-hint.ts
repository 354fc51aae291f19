import { readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { importModule } from './import-module.js'
import { esmResolve } from './node-resolve.js'
import { packageOf } from './resolve.js'

/** How many of a project's own modules the hint reads, the file itself included: it only adds a hint. */
const MAX_LOCAL_MODULES = 25

/**
 * What to write instead when a config file — or a module of the project it imports (`./guard.mjs`),
 * or a plugin entry given by path — imports from a Bosun package a name that package does not
 * export: `import { defineConfig } from '@bosun/core'`, where it lives in `@bosun/core/config`.
 * The failure itself says nothing of the kind: transpiled, the import is `(0 , _core.defineConfig)
 * is not a function`; Node's own is "does not provide an export named". Only run once the file
 * failed to load: it reads the `@bosun/*` imports of the file and of the project's modules it
 * imports by relative path (up to {@link MAX_LOCAL_MODULES}), and imports the entry points of those
 * packages, to find which one has the name. A module other than `file` is named (from `file`'s
 * folder). '' when no import is wrong.
 */
export async function missingExportHint(file: string): Promise<string> {
  const hints: string[] = []
  const seen = new Set<string>([file])
  const queue = [file]
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    let text: string
    try {
      text = readFileSync(next, 'utf8')
    } catch {
      continue
    }
    const parentURL = pathToFileURL(next).href
    const where = next === file ? '' : `in ./${relative(dirname(file), next).split('\\').join('/')}, `
    for (const { specifier, names } of bosunImports(text)) {
      const exported = await exportsOf(specifier, parentURL)
      if (exported === undefined) continue
      for (const name of names.filter((each) => !exported.has(each))) {
        const home = await entryPointWith(name, specifier, parentURL)
        hints.push(
          home === undefined
            ? `${where}${specifier} does not export ${name}, nor does any other entry point of ${packageOf(specifier)}.`
            : `${where}${specifier} does not export ${name}: it is in ${home} (import { ${name} } from '${home}').`,
        )
      }
    }
    for (const specifier of localImports(text)) {
      const found = localModule(resolve(dirname(next), specifier))
      if (found === undefined || seen.has(found) || seen.size >= MAX_LOCAL_MODULES) continue
      seen.add(found)
      queue.push(found)
    }
  }
  return hints.length === 0 ? '' : ` ${hints.join(' ')}`
}

/** The relative specifiers a module imports or re-exports (`./x`, `../y.js`), static or by `require`/`import()`. */
export function localImports(text: string): string[] {
  const found = new Set<string>()
  const patterns = [/\b(?:import|export)\b[^'";]{0,400}?\bfrom\s*['"](\.\.?\/[^'"]+)['"]/g, /\bimport\s*['"](\.\.?\/[^'"]+)['"]/g, /\b(?:require|import)\(\s*['"](\.\.?\/[^'"]+)['"]\s*\)/g]
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.add(match[1]!)
  return [...found]
}

/** The file a relative import names: as written, with a script extension, or a folder's index — as Node, jiti and TypeScript look. */
function localModule(path: string): string | undefined {
  const extensions = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']
  // TypeScript's ESM style names the .js its .ts compiles to.
  const swapped = /\.(m|c)?js$/.test(path) ? [path.replace(/\.(m|c)?js$/, '.$1ts')] : []
  const candidates = [path, ...swapped, ...extensions.map((ext) => path + ext), ...extensions.map((ext) => join(path, `index${ext}`))]
  return candidates.find((candidate) => {
    try {
      return statSync(candidate).isFile()
    } catch {
      return false
    }
  })
}

/**
 * The names a file imports from `@bosun/*` packages, by specifier: `import { a, b as c } from`,
 * `import d, { a } from` and `const { a } = require(…)`. Type-only imports are erased before the
 * file runs, so they are left out. A regular expression, not a parser: this only adds a hint.
 */
export function bosunImports(text: string): { specifier: string; names: string[] }[] {
  const found: { specifier: string; names: string[] }[] = []
  const imports = /\bimport\s+(type\s+)?(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*['"](@bosun\/[^'"]+)['"]/g
  const requires = /\{([^}]*)\}\s*=\s*require\(\s*['"](@bosun\/[^'"]+)['"]\s*\)/g
  for (const match of text.matchAll(imports)) {
    if (match[1] === undefined) found.push({ specifier: match[3]!, names: importedNames(match[2]!, /\s+as\s+/) })
  }
  for (const match of text.matchAll(requires)) found.push({ specifier: match[2]!, names: importedNames(match[1]!, /\s*:\s*/) })
  return found.filter(({ names }) => names.length > 0)
}

function importedNames(list: string, rename: RegExp): string[] {
  return list
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !/^type\s/.test(part) && !part.startsWith('...'))
    .map((part) => part.split(rename)[0]!.trim())
    .filter((name) => /^[\w$]+$/.test(name))
}

/** The names a module exports; undefined when it cannot be found or loaded (another hint says so). */
async function exportsOf(specifier: string, parentURL: string): Promise<Set<string> | undefined> {
  const found = esmResolve(specifier, parentURL)
  if (found === undefined) return undefined
  try {
    const namespace = await importModule(fileURLToPath(found))
    return typeof namespace === 'object' && namespace !== null ? new Set(Object.keys(namespace)) : undefined
  } catch {
    return undefined
  }
}

/** The package's other entry point (from its `exports`) that exports the name, if one does. */
async function entryPointWith(name: string, specifier: string, parentURL: string): Promise<string | undefined> {
  const pkg = packageOf(specifier)
  for (const subpath of entryPoints(pkg, parentURL)) {
    const candidate = subpath === '.' ? pkg : `${pkg}${subpath.slice(1)}`
    if (candidate === specifier) continue
    if ((await exportsOf(candidate, parentURL))?.has(name) === true) return candidate
  }
  return undefined
}

/** The subpaths of a package's `exports` that name modules (not `./package.json`, not patterns). */
function entryPoints(pkg: string, parentURL: string): string[] {
  const manifest = manifestOf(pkg, parentURL)
  const exports = manifest?.exports
  if (typeof exports !== 'object' || exports === null) return []
  const keys = Object.keys(exports)
  if (!keys.every((key) => key.startsWith('.'))) return ['.']
  return keys.filter((key) => !key.includes('*') && !/\.json$/.test(key))
}

/** The package's package.json, found up from the file its main entry resolves to. */
function manifestOf(pkg: string, parentURL: string): { name?: unknown; exports?: unknown } | undefined {
  const found = esmResolve(pkg, parentURL)
  if (found === undefined) return undefined
  let dir = dirname(fileURLToPath(found))
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; exports?: unknown }
      if (manifest.name === pkg) return manifest
    } catch {
      // no package.json here: go up
    }
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}
