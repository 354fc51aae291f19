// Review Y11: `@ai-sdk/provider` was a required peer. npm (7+) installs a required peer by itself,
// and its newest release needs Node 22: on Node 20, the supported version, the install warned
// EBADENGINE, and failed with engine-strict. The bridge only takes its types (the model is told
// apart at run time by `specificationVersion`), so the peer is optional; this also keeps it so.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')
const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

describe("the bridge's peer on @ai-sdk/provider", () => {
  it('is optional: npm does not install it on its own (nor fail on its engines)', () => {
    expect(manifest.peerDependencies?.['@ai-sdk/provider']).toBeDefined()
    expect(manifest.peerDependenciesMeta?.['@ai-sdk/provider']).toEqual({ optional: true })
  })

  it('is only for types: no source file imports an @ai-sdk package at run time', async () => {
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
})
