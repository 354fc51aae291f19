#!/usr/bin/env node
// Writes `schema.json` for every Bosun package whose package.json names one in its manifest
// (`"bosun": { "options": "./schema.json" }`), from the options schema of the package's built
// default export — the schema `definePlugin` / `defineAdapter` / `defineStore` validates with
// stays the one source. `bosun plugins info` and `add` read the file from the registry without
// installing the package. Run after `pnpm build` when a package's options change;
// tests/marketplace/first-party-manifests.test.ts fails while a file is stale.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** Folders of the packages that declare an options schema file, with the file's path. */
export function manifestSchemaFiles(root) {
  const found = []
  for (const parent of ['packages/adapters', 'packages/plugins', 'examples']) {
    for (const name of readdirSync(join(root, parent))) {
      const dir = join(root, parent, name)
      const file = join(dir, 'package.json')
      if (!existsSync(file)) continue
      const options = JSON.parse(readFileSync(file, 'utf8')).bosun?.options
      if (typeof options === 'string') found.push({ dir, file: join(dir, options) })
    }
  }
  return found
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(fileURLToPath(import.meta.url), '../..')
  for (const { dir, file } of manifestSchemaFiles(root)) {
    const { default: definition } = await import(pathToFileURL(join(dir, 'dist/index.js')).href)
    writeFileSync(file, `${JSON.stringify(definition.schema ?? {}, null, 2)}\n`)
    console.log(`${file.slice(root.length + 1)} written`)
  }
}
