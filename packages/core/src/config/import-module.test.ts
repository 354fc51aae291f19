import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importModule } from './import-module.js'
import { loadConfig } from './load.js'
import { defaultExport } from './resolve.js'

let root: string

function write(path: string, content: string): string {
  const file = join(root, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, content)
  return file
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bosun-import-module-'))
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('importModule', () => {
  it('loads ESM and CommonJS whatever their package says, and TypeScript', async () => {
    write('esm/package.json', '{ "type": "module" }')
    write('typeless/package.json', '{ "name": "typeless" }')
    write('commonjs/package.json', '{ "type": "commonjs" }')
    const cases = {
      'esm/a.js': 'export default "esm .js"',
      'esm/b.cjs': 'module.exports = "cjs"',
      'typeless/c.js': 'export default "esm syntax in a typeless package"',
      'typeless/d.js': 'module.exports = "commonjs .js"',
      'typeless/e.mjs': 'export default "mjs"',
      'typeless/f.ts': 'const text: string = "ts"\nexport default text',
      'typeless/g.cts': 'module.exports = "cts"',
      'commonjs/h.js': 'module.exports = "commonjs package"',
      'commonjs/i.js': 'export default "esm syntax in a commonjs package"',
    }
    for (const [path, source] of Object.entries(cases)) {
      expect(defaultExport(await importModule(write(path, source))).value, path).toBe(/"(.*)"/.exec(source)![1])
    }
  })

  it('loads an ES module that imports a TypeScript file (through jiti, as before)', async () => {
    write('mixed/helper.ts', 'export const word: string = "typed"')
    const file = write('mixed/plugin.mjs', 'import { word } from "./helper.ts"\nexport default word')
    expect(((await importModule(file)) as { default: unknown }).default).toBe('typed')
  })
})

describe('loadConfig — a config file edited between two loads in one process', () => {
  it.each([
    ['module', 'bosun.config.mjs', (text: string) => `export default { system: '${text}' }`],
    ['module', 'bosun.config.js', (text: string) => `export default { system: '${text}' }`],
    ['commonjs', 'bosun.config.js', (text: string) => `module.exports = { system: '${text}' }`],
    ['commonjs', 'bosun.config.ts', (text: string) => `export default { system: '${text}' }`],
  ])('a %s %s is read afresh', async (type, name, source) => {
    const dir = join(root, `edited-${type}-${name}`)
    write(join(`edited-${type}-${name}`, 'package.json'), JSON.stringify({ type }))
    write(join(`edited-${type}-${name}`, name), source('first'))
    expect((await loadConfig({ cwd: dir, validate: false })).config.system).toBe('first')
    write(join(`edited-${type}-${name}`, name), source('second'))
    expect((await loadConfig({ cwd: dir, validate: false })).config.system).toBe('second')
  })
})
