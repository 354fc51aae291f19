import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ScaffoldError, ScaffoldErrorCodes } from './errors.js'
import { pluginNames, type PluginNames } from './names.js'
import { outputPath, render } from './render.js'
import { dependencyRanges } from './versions.js'

/** The templates ship beside `src/` and `dist/`, so this resolves from either. */
const TEMPLATES = fileURLToPath(new URL('../templates/', import.meta.url))

export interface ScaffoldOptions {
  /** The plugin name as typed: `my-guard`, `bosun-plugin-my-guard`, `@acme/my-guard`. */
  name: string
  /** An npm scope (`acme` or `@acme`). */
  scope?: string
  /** The folder to create the package in; default `<cwd>/<package name without scope>`. Must be absent or empty. */
  dir?: string
  /** What a relative `dir` is resolved from. Default `process.cwd()`. */
  cwd?: string
}

export interface ScaffoldResult {
  /** The package's absolute folder. */
  dir: string
  names: PluginNames
  /** The files written, relative to `dir`, sorted. */
  files: string[]
}

/**
 * Writes a ready plugin package: `package.json` (with the `bosun-plugin` keyword and the `bosun`
 * manifest), `src/index.ts`, `src/options.ts`, a test using `@bosun/testkit`, a README, a
 * changeset and the TypeScript configs. Refuses a target folder that is not empty.
 *
 * @example
 * const { dir, files } = await scaffold({ name: 'my-guard', scope: '@acme' })
 */
export async function scaffold(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const names = pluginNames(options.name, options.scope)
  const dir = resolve(options.cwd ?? process.cwd(), options.dir ?? names.folder)
  await assertEmpty(dir)
  const values: Record<string, string> = {
    name: names.name,
    packageName: names.packageName,
    configName: names.configName,
    coreRange: dependencyRanges['@bosun/core'],
    testkitRange: dependencyRanges['@bosun/testkit'],
    changesetsRange: dependencyRanges['@changesets/cli'],
    typesNodeRange: dependencyRanges['@types/node'],
    typescriptRange: dependencyRanges.typescript,
    vitestRange: dependencyRanges.vitest,
  }
  const templates = await listFiles(TEMPLATES)
  // Render everything before writing anything: a template bug leaves no half-written package.
  const rendered = await Promise.all(
    templates.map(async (template) => ({
      file: outputPath(template),
      text: render(await readFile(join(TEMPLATES, template), 'utf8'), values, template),
    })),
  )
  for (const { file, text } of rendered) {
    const target = join(dir, file)
    await mkdir(dirname(target), { recursive: true })
    await writeFile(target, text, { flag: 'wx' }) // never overwrite
  }
  return { dir, names, files: rendered.map(({ file }) => file).sort() }
}

async function assertEmpty(dir: string): Promise<void> {
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (info === undefined) return
  const shown = relative(process.cwd(), dir) || '.'
  if (!info.isDirectory()) {
    throw new ScaffoldError(ScaffoldErrorCodes.TARGET_NOT_EMPTY, `${shown} is a file. Choose another folder with --dir.`, { dir })
  }
  const entries = await readdir(dir)
  if (entries.length > 0) {
    throw new ScaffoldError(
      ScaffoldErrorCodes.TARGET_NOT_EMPTY,
      `${shown} is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}); nothing was written. Choose another folder with --dir, or empty it.`,
      { dir },
    )
  }
}

/** Every file under `root`, as `/`-separated paths relative to it, sorted. */
async function listFiles(root: string, prefix = ''): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`
    if (entry.isDirectory()) files.push(...(await listFiles(root, path)))
    else if (entry.isFile()) files.push(path)
  }
  return files.sort()
}
