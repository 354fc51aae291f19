// Writes packages/core/schema.json from the config's root schema (src/config/schema.ts), which
// gives completion in JSON and YAML configs. A test fails when the file is stale.
import { writeFile } from 'node:fs/promises'
import { createJiti } from 'jiti'

const jiti = createJiti(import.meta.url)
const { renderConfigSchema } = await jiti.import('../src/config/schema.ts')
const target = new URL('../schema.json', import.meta.url)
await writeFile(target, renderConfigSchema())
console.log(`wrote ${target.pathname}`)
