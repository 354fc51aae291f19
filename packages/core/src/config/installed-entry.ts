import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/**
 * A package that is installed but does not resolve: its folder is in `node_modules`, but the file
 * its `package.json` names as its entry is not there — a plugin published or linked without its
 * built files (`dist/` left out of `files`, or never built). Resolution alone says "cannot be
 * found", and "did you mean" then offers the very name the config wrote (the folder makes it a
 * known name): this says what is wrong instead. `undefined` when no candidate has a folder.
 */
export function installedWithoutEntry(candidates: readonly string[], dir: string): string | undefined {
  for (const pkg of candidates) {
    const folder = installedFolder(pkg, dir)
    if (folder === undefined) continue
    let manifest: unknown
    try {
      manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))
    } catch {
      return `cannot be loaded: ${pkg} is installed at ${folder}, but its package.json cannot be read as JSON. Reinstall it (npm install ${pkg}).`
    }
    const entry = entryOf(manifest)
    if (entry === undefined) {
      return (
        `cannot be loaded: ${pkg} is installed at ${folder}, but the "exports" of its package.json name no file for "." ` +
        `(no "import", "require", "node" or "default" target). Publish the package with one ` +
        `(e.g. "exports": {".": {"import": "./dist/index.js"}}), or reinstall a version that has it (npm install ${pkg}).`
      )
    }
    if (existsSync(resolve(folder, entry))) continue // resolves by some other rule; the importer will say what fails
    return (
      `cannot be loaded: ${pkg} is installed at ${folder}, but its package.json names its entry ${JSON.stringify(entry)}, ` +
      `and there is no such file — the package was published or linked without its built files. If it is yours, build it ` +
      `(its "build" script) and make sure "files" in its package.json includes the output, then publish or link it again; ` +
      `otherwise reinstall a version that has them (npm install ${pkg}).`
    )
  }
  return undefined
}

/** The folder of `pkg` in the `node_modules` of `dir` or a folder above it, as Node looks. */
function installedFolder(pkg: string, dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const folder = join(at, 'node_modules', pkg)
    if (existsSync(join(folder, 'package.json'))) return folder
    if (dirname(at) === at) return undefined
  }
}

/** The file an ES import of the package's main entry loads, as its package.json says (no file checks). */
function entryOf(manifest: unknown): string | undefined {
  if (typeof manifest !== 'object' || manifest === null) return 'index.js'
  const { exports, main } = manifest as { exports?: unknown; main?: unknown }
  if (exports === undefined || exports === null) return typeof main === 'string' ? main : 'index.js'
  if (typeof exports === 'string') return exports
  if (typeof exports !== 'object') return undefined
  const dot = Object.keys(exports).some((key) => key.startsWith('.')) ? (exports as Record<string, unknown>)['.'] : exports
  return conditional(dot)
}

/**
 * A conditional export's target as config resolution looks for one (node-resolve.ts: the
 * conditions `node` + `import`, then `node` + `require`, then `default`), nested.
 */
function conditional(target: unknown): string | undefined {
  return targetFor(target, IMPORT) ?? targetFor(target, REQUIRE)
}

const IMPORT = new Set(['node', 'import', 'default'])
const REQUIRE = new Set(['node', 'require', 'default'])

function targetFor(target: unknown, conditions: ReadonlySet<string>): string | undefined {
  if (typeof target === 'string') return target
  if (Array.isArray(target)) return target.map((each) => targetFor(each, conditions)).find((found) => found !== undefined)
  if (typeof target !== 'object' || target === null) return undefined
  for (const [condition, value] of Object.entries(target)) {
    if (!conditions.has(condition)) continue
    const found = targetFor(value, conditions)
    if (found !== undefined) return found
  }
  return undefined
}
