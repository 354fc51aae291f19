import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createJiti } from 'jiti'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveFile, resolvePackage } from './node-resolve.js'

// node-resolve.ts stands in for jiti's resolver on the CLI's start: every case is checked against
// what jiti answers too, so the two cannot drift apart unnoticed.
let root: string
let project: string
let parentURL: string

/** Writes files (path → content; an object is written as JSON) under `root`. */
function write(files: Record<string, unknown>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content))
  }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bosun-node-resolve-'))
  project = join(root, 'app/project')
  parentURL = pathToFileURL(join(project, 'bosun.config.js')).href
  const js = 'export default 1\n'
  write({
    'app/project/package.json': { name: 'my-app', exports: { '.': './main.js', './tools': './tools.js' } },
    'app/project/main.js': js,
    'app/project/tools.js': js,
    'app/project/plugin.mjs': js,
    'app/project/guard.ts': js,
    'app/project/lib/index.js': js,
    'app/project/pkg-dir/package.json': { main: 'start.js' },
    'app/project/pkg-dir/start.js': js,
    // Conditions, in the order the package gives them: `import` before `require`, nested, `default`.
    'app/project/node_modules/dual/package.json': { exports: { '.': { require: './cjs.cjs', import: './esm.mjs' }, './package.json': './package.json' } },
    'app/project/node_modules/dual/cjs.cjs': 'module.exports = 1\n',
    'app/project/node_modules/dual/esm.mjs': js,
    'app/project/node_modules/cjs-only/package.json': { exports: { require: './index.cjs' } },
    'app/project/node_modules/cjs-only/index.cjs': 'module.exports = 1\n',
    'app/project/node_modules/@acme/bosun-plugin-x/package.json': { exports: { '.': { node: { import: './dist/node.js' }, default: './dist/index.js' }, './features/*': './dist/features/*.js', './features/private/*': null } },
    'app/project/node_modules/@acme/bosun-plugin-x/dist/node.js': js,
    'app/project/node_modules/@acme/bosun-plugin-x/dist/index.js': js,
    'app/project/node_modules/@acme/bosun-plugin-x/dist/features/a.js': js,
    'app/project/node_modules/@acme/bosun-plugin-x/dist/features/private/b.js': js,
    'app/project/node_modules/sugar/package.json': { exports: './sugar.js' },
    'app/project/node_modules/sugar/sugar.js': js,
    'app/project/node_modules/fallbacks/package.json': { exports: ['./missing.js', './there.js'] },
    'app/project/node_modules/fallbacks/there.js': js,
    'app/project/node_modules/fallbacks-invalid/package.json': { exports: ['not-relative.js', { browser: './browser.js' }, './there.js'] },
    'app/project/node_modules/fallbacks-invalid/there.js': js,
    // No `exports`: `main`, then index.js; subpaths as files, with extensions tried.
    'app/project/node_modules/legacy/package.json': { main: 'lib/entry' },
    'app/project/node_modules/legacy/lib/entry.js': js,
    'app/project/node_modules/legacy/lib/helper.js': js,
    'app/project/node_modules/bare/package.json': { name: 'bare' },
    'app/project/node_modules/bare/index.js': js,
    // Found in a folder above the project; the nearer copy wins when both have it.
    'app/node_modules/above/package.json': { exports: './above.js' },
    'app/node_modules/above/above.js': js,
    'app/node_modules/dual/package.json': { exports: './far.js' },
    'app/node_modules/dual/far.js': js,
  })
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

const jitiResolve = (id: string): string | undefined => {
  const found = createJiti(parentURL, { interopDefault: false }).esmResolve(id, { parentURL, try: true })
  return found === undefined ? undefined : found.replace(/^file:\/\//, '')
}

describe('resolvePackage', () => {
  it.each([
    ['dual', 'app/project/node_modules/dual/esm.mjs'],
    ['dual/package.json', 'app/project/node_modules/dual/package.json'],
    ['cjs-only', 'app/project/node_modules/cjs-only/index.cjs'],
    ['@acme/bosun-plugin-x', 'app/project/node_modules/@acme/bosun-plugin-x/dist/node.js'],
    ['@acme/bosun-plugin-x/features/a', 'app/project/node_modules/@acme/bosun-plugin-x/dist/features/a.js'],
    ['@acme/bosun-plugin-x/features/private/b', undefined],
    ['@acme/bosun-plugin-x/dist/index.js', undefined],
    ['sugar', 'app/project/node_modules/sugar/sugar.js'],
    // Node falls back only past an invalid target, not past a missing file.
    ['fallbacks', undefined],
    ['fallbacks-invalid', 'app/project/node_modules/fallbacks-invalid/there.js'],
    ['legacy', 'app/project/node_modules/legacy/lib/entry.js'],
    ['legacy/lib/helper', 'app/project/node_modules/legacy/lib/helper.js'],
    ['bare', 'app/project/node_modules/bare/index.js'],
    ['above', 'app/node_modules/above/above.js'],
    ['my-app', 'app/project/main.js'],
    ['my-app/tools', 'app/project/tools.js'],
    ['nowhere', undefined],
    ['@acme/nowhere', undefined],
  ])('%s → %s, as jiti resolves it', (specifier, expected) => {
    const found = resolvePackage(specifier, parentURL)
    expect(found).toBe(expected === undefined ? undefined : join(root, expected))
    expect(found).toBe(jitiResolve(specifier))
  })
})

describe('resolveFile', () => {
  it.each([
    ['plugin.mjs', 'plugin.mjs'],
    ['plugin', 'plugin.mjs'],
    ['guard', 'guard.ts'],
    ['guard.js', 'guard.ts'],
    ['lib', 'lib/index.js'],
    ['pkg-dir', 'pkg-dir/start.js'],
    ['missing.js', undefined],
  ])('./%s → %s, as jiti resolves it', (path, expected) => {
    const found = resolveFile(join(project, path), parentURL)
    expect(found).toBe(expected === undefined ? undefined : join(project, expected))
    expect(found).toBe(jitiResolve(join(project, path)))
  })
})

describe('where packages are looked for', () => {
  it('only in the node_modules folders above the config, as import looks: never NODE_PATH', () => {
    // A runner started by pnpm sets NODE_PATH to its store: a package the project never installed
    // (the CLI's optional SQLite store) resolved from there, and a missing-package error became a run.
    write({ 'elsewhere/node_modules/only-on-node-path/package.json': { main: 'index.js' }, 'elsewhere/node_modules/only-on-node-path/index.js': 'module.exports = 1\n' })
    const module = createRequire(import.meta.url)('node:module') as { _initPaths(): void }
    const saved = process.env['NODE_PATH']
    process.env['NODE_PATH'] = join(root, 'elsewhere/node_modules')
    module._initPaths()
    try {
      // require would find it there; import (and so the config loader) does not.
      expect(createRequire(parentURL).resolve('only-on-node-path')).toBe(join(root, 'elsewhere/node_modules/only-on-node-path/index.js'))
      expect(resolvePackage('only-on-node-path', parentURL)).toBeUndefined()
    } finally {
      if (saved === undefined) delete process.env['NODE_PATH']
      else process.env['NODE_PATH'] = saved
      module._initPaths()
    }
  })
})
