// Writes schema.json, the options JSON Schema that package.json's "bosun.options" points at, from
// the build: src/options.ts stays its one source. `bosun plugins info` and `bosun plugins add` read
// it from the registry to show and check the options before the plugin is installed.
import { writeFile } from 'node:fs/promises'

const { optionsSchema } = await import('../dist/options.js')
await writeFile(new URL('../schema.json', import.meta.url), `${JSON.stringify(optionsSchema, null, 2)}\n`)
