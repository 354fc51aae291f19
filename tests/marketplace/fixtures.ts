// The plugins the marketplace test publishes, each made by the create-bosun-plugin template as an
// author would make it, then built the way its `npm run build` does (TypeScript to dist/, then the
// template's scripts/write-schema.mjs), and published with npm to the test's registry. The build
// transpiles with the workspace's TypeScript instead of installing each package's dev tools.
import { readFile, writeFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import ts from 'typescript'
import { scaffold } from 'create-bosun-plugin'
import { succeed } from '../release/processes.js'

export interface Fixture {
  name: string
  dir: string
}

/**
 * Scaffolds `name` (`word-guard`, or with `scope`) into `parent`, lets `edit` change its
 * package.json (a first-party name, another core range) and `editSource` a source file before it
 * is built (a setup that throws), builds it and `npm publish`es it.
 */
export async function publishFixture(
  parent: string,
  name: string,
  env: Record<string, string>,
  options: { scope?: string; edit?: (manifest: Record<string, any>) => void; editSource?: (file: string, source: string) => string } = {},
): Promise<Fixture> {
  const { dir } = await scaffold({ name, cwd: parent, ...(options.scope ? { scope: options.scope } : {}) })
  const manifestFile = join(dir, 'package.json')
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, any>
  options.edit?.(manifest)
  manifest.version = '1.0.0'
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)
  await mkdir(join(dir, 'dist'))
  for (const file of ['index.ts', 'options.ts']) {
    const written = await readFile(join(dir, 'src', file), 'utf8')
    const source = options.editSource ? options.editSource(file, written) : written
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      fileName: file,
    })
    await writeFile(join(dir, 'dist', file.replace(/\.ts$/, '.js')), outputText)
  }
  await succeed(process.execPath, [join(dir, 'scripts/write-schema.mjs')], { cwd: dir, env })
  // prepublishOnly (typecheck, test, build) needs the dev tools this build did without.
  await succeed('npm', ['publish', '--ignore-scripts'], { cwd: dir, env })
  return { name: manifest.name as string, dir }
}
