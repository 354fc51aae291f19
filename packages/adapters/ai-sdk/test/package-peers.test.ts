// The bridge declares no dependency on any `@ai-sdk` package, not even a peer. Review Y11 made
// `@ai-sdk/provider` an optional peer (as a required one npm installed its newest release, which
// needs Node 22), but its range, `^4`, still had npm refuse the documented install on Node 20:
// `npm install @bosun/adapter-ai-sdk @ai-sdk/provider @ai-sdk/anthropic` picks the providers that
// run there, built on `@ai-sdk/provider` 3, and fails with ERESOLVE (found walking the docs). The
// published types are written without it (`AiSdkLanguageModel` is what the bridge uses of a model),
// so a model of any provider package fits, and nothing of `@ai-sdk` is needed to type-check.
import type { LanguageModelV2, LanguageModelV3, LanguageModelV4 } from '@ai-sdk/provider'
import { createOpenAI } from '@ai-sdk/openai'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import type { AiSdkLanguageModel, AiSdkOptions } from '../src/index.js'

const root = join(import.meta.dirname, '..')
const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>

/** The declarations `tsc` writes for a source module (`src/<name>.ts`), without type-checking it. */
async function declarations(name: string): Promise<string> {
  const source = await readFile(join(root, 'src', `${name}.ts`), 'utf8')
  return ts.transpileDeclaration(source, { fileName: `${name}.ts`, compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 } }).outputText
}

describe('the bridge and @ai-sdk packages', () => {
  it('declares none: no dependency or peer that npm could find in conflict with a provider package', () => {
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'peerDependenciesMeta']) {
      expect(Object.keys(manifest[field] ?? {}).filter((name) => name.startsWith('@ai-sdk/')), field).toEqual([])
    }
  })

  it('its published types import nothing of @ai-sdk: every declaration reached from the entry point', async () => {
    const reached = new Set<string>()
    const imported: string[] = []
    const visit = async (name: string): Promise<void> => {
      if (reached.has(name)) return
      reached.add(name)
      for (const [, specifier] of (await declarations(name)).matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm)) {
        if (specifier!.startsWith('./')) await visit(specifier!.slice(2).replace(/\.js$/, ''))
        else imported.push(`${name}: ${specifier}`)
      }
    }
    await visit('index')
    expect([...reached]).toContain('options')
    expect(imported.filter((line) => line.includes('@ai-sdk/'))).toEqual([])
  })

  it('is only for types at run time too: no source file imports an @ai-sdk package but as a type', async () => {
    const files = (await readdir(join(root, 'src'))).filter((name) => name.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(0)
    const runtime: string[] = []
    for (const name of files) {
      const text = await readFile(join(root, 'src', name), 'utf8')
      // `import type {…} from '@ai-sdk/…'` is erased; any other import or require is loaded.
      for (const match of text.matchAll(/(?:^|\n)\s*(import|export)(?!\s+type\b)[^;'"]*?from\s*['"](@ai-sdk\/[^'"]+)['"]|\b(?:import|require)\s*\(\s*['"](@ai-sdk\/[^'"]+)['"]/g)) {
        runtime.push(`${name}: ${match[2] ?? match[3]}`)
      }
    }
    expect(runtime).toEqual([])
  })

  it('takes a model of every specification, and a real provider built on @ai-sdk/provider 3, as its model option (checked by tsc)', () => {
    // Type-level: `npx tsc -p tsconfig.json` fails on this file if one of them does not fit.
    const models = (v2: LanguageModelV2, v3: LanguageModelV3, v4: LanguageModelV4): AiSdkLanguageModel[] => [v2, v3, v4]
    const options: AiSdkOptions = { model: createOpenAI({ apiKey: 'unused' }).chat('gpt-4.1-nano') }
    expect(typeof models).toBe('function')
    expect(options.model.specificationVersion).toBe('v3')
  })
})
