import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createJiti } from 'jiti'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { esmResolve } from './node-resolve.js'

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

const js = 'export default 1\n'
const cjs = 'module.exports = 1\n'

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bosun-node-resolve-'))
  project = join(root, 'app/project')
  parentURL = pathToFileURL(join(project, 'bosun.config.js')).href
  write({
    'app/project/package.json': { name: 'my-app', exports: { '.': './main.js', './tools': './tools.js' }, imports: { '#dep': './lib/index.js', '#ext/*': 'legacy/lib/*.js' } },
    'app/project/main.js': js,
    'app/project/tools.js': js,
    'app/project/plugin.mjs': js,
    'app/project/guard.ts': js,
    'app/project/helper.mts': js,
    'app/project/lib/index.js': js,
    'app/project/pkg-dir/package.json': { main: 'start.js' },
    'app/project/pkg-dir/start.js': js,
    'app/project/odd dir/#plugin.mjs': js,
    'app/project/notes.txt': 'not a folder',
    // Conditions, in the order the package gives them: `import` before `require`, nested, `default`.
    'app/project/node_modules/dual/package.json': { exports: { '.': { require: './cjs.cjs', import: './esm.mjs' }, './package.json': './package.json' } },
    'app/project/node_modules/dual/cjs.cjs': cjs,
    'app/project/node_modules/dual/esm.mjs': js,
    'app/project/node_modules/cjs-only/package.json': { exports: { require: './index.cjs' } },
    'app/project/node_modules/cjs-only/index.cjs': cjs,
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
    'app/project/node_modules/no-condition/package.json': { exports: { browser: './browser.js' } },
    'app/project/node_modules/no-condition/index.js': js,
    'app/project/node_modules/numeric/package.json': { exports: { '.': { 0: './zero.js' } } },
    'app/project/node_modules/numeric/zero.js': js,
    'app/project/node_modules/mixed-keys/package.json': { exports: { '.': './a.js', import: './b.js' } },
    'app/project/node_modules/mixed-keys/a.js': js,
    'app/project/node_modules/broken-json/package.json': '{ "main": ',
    'app/project/node_modules/broken-json/index.js': cjs,
    // No `exports`: `main`, then index.js; subpaths as files, with extensions tried.
    'app/project/node_modules/legacy/package.json': { main: 'lib/entry' },
    'app/project/node_modules/legacy/lib/entry.js': js,
    'app/project/node_modules/legacy/lib/helper.js': js,
    'app/project/node_modules/bare/package.json': { name: 'bare' },
    'app/project/node_modules/bare/index.js': js,
    'app/project/node_modules/no-manifest/index.js': cjs,
    'app/project/node_modules/lost-main/package.json': { main: 'gone.js' },
    'app/project/node_modules/lost-main/index.js': cjs,
    // An empty folder for a package nearer than the real one: import stops there, require goes on.
    'app/project/node_modules/shadow/README.md': 'nothing here',
    'app/node_modules/shadow/index.js': cjs,
    // Found in a folder above the project; the nearer copy wins when both have it.
    'app/node_modules/above/package.json': { exports: './above.js' },
    'app/node_modules/above/above.js': js,
    'app/node_modules/dual/package.json': { exports: './far.js' },
    'app/node_modules/dual/far.js': js,
    // A package linked in, as pnpm links them: answered by its real path.
    'store/linked@1/package.json': { name: 'linked', exports: './index.js' },
    'store/linked@1/index.js': js,
  })
  symlinkSync(join(root, 'store/linked@1'), join(project, 'node_modules/linked'), 'dir')
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

const jitiResolve = (id: string, parent = parentURL): string | undefined => createJiti(parent, { interopDefault: false }).esmResolve(id, { parentURL: parent, try: true })
const url = (path: string): string => pathToFileURL(join(root, path)).href

describe('esmResolve — package names', () => {
  it.each([
    ['dual', 'app/project/node_modules/dual/esm.mjs'],
    ['dual/package.json', 'app/project/node_modules/dual/package.json'],
    ['dual/cjs.cjs', undefined],
    ['cjs-only', 'app/project/node_modules/cjs-only/index.cjs'],
    ['@acme/bosun-plugin-x', 'app/project/node_modules/@acme/bosun-plugin-x/dist/node.js'],
    ['@acme/bosun-plugin-x/features/a', 'app/project/node_modules/@acme/bosun-plugin-x/dist/features/a.js'],
    ['@acme/bosun-plugin-x/features/private/b', undefined],
    ['@acme/bosun-plugin-x/dist/index.js', undefined],
    ['sugar', 'app/project/node_modules/sugar/sugar.js'],
    // Node falls back only past an invalid target, not past a missing file.
    ['fallbacks', undefined],
    ['fallbacks-invalid', 'app/project/node_modules/fallbacks-invalid/there.js'],
    ['no-condition', undefined],
    ['numeric', undefined],
    ['mixed-keys', undefined],
    ['broken-json', undefined],
    ['legacy', 'app/project/node_modules/legacy/lib/entry.js'],
    ['legacy/lib/helper', 'app/project/node_modules/legacy/lib/helper.js'],
    ['bare', 'app/project/node_modules/bare/index.js'],
    ['no-manifest', 'app/project/node_modules/no-manifest/index.js'],
    ['lost-main', 'app/project/node_modules/lost-main/index.js'],
    ['shadow', 'app/node_modules/shadow/index.js'],
    ['above', 'app/node_modules/above/above.js'],
    ['linked', 'store/linked@1/index.js'],
    ['my-app', 'app/project/main.js'],
    ['my-app/tools', 'app/project/tools.js'],
    ['#dep', 'app/project/lib/index.js'],
    ['#ext/helper', 'app/project/node_modules/legacy/lib/helper.js'],
    ['#nothing', undefined],
    ['nowhere', undefined],
    ['@acme/nowhere', undefined],
    ['@acme', undefined],
    ['%bad', undefined],
  ])('%s → %s, as jiti resolves it', (specifier, expected) => {
    const found = esmResolve(specifier, parentURL)
    expect(found).toBe(expected === undefined ? undefined : url(expected))
    expect(found).toBe(jitiResolve(specifier))
  })

  it.each(['fs', 'node:fs', 'node:test', 'data:text/javascript,export default 1'])('%s, a name jiti answers without looking, as jiti does', (specifier) => {
    expect(esmResolve(specifier, parentURL)).toBe(jitiResolve(specifier))
  })
})

describe('esmResolve — paths', () => {
  it.each([
    ['plugin.mjs', 'plugin.mjs'],
    ['plugin', 'plugin.mjs'],
    ['plugin.js', undefined],
    ['guard', 'guard.ts'],
    ['guard.js', 'guard.ts'],
    ['helper.mjs', 'helper.mts'],
    ['lib', 'lib/index.js'],
    ['lib/', 'lib/index.js'],
    ['pkg-dir', 'pkg-dir/start.js'],
    ['odd dir/#plugin.mjs', 'odd dir/#plugin.mjs'],
    ['odd dir/#plugin', 'odd dir/#plugin.mjs'],
    ['notes.txt/inside', undefined],
    ['missing.js', undefined],
    ['node_modules/linked/index.js', 'node_modules/linked/index.js'],
    // Found by trying extensions, the file is answered by its real path; named whole, as named.
    ['node_modules/linked/index', '../../store/linked@1/index.js'],
  ])('./%s → %s, as jiti resolves it', (path, expected) => {
    const found = esmResolve(join(project, path), parentURL)
    expect(found).toBe(expected === undefined ? undefined : pathToFileURL(join(project, expected)).href)
    expect(found).toBe(jitiResolve(join(project, path)))
  })

  it('a file URL and a path in node_modules/jiti/ (answered as given), as jiti does', () => {
    for (const id of [pathToFileURL(join(project, 'plugin')).href, join(project, 'node_modules/jiti/nothing.js')]) {
      expect(esmResolve(id, parentURL)).toBe(jitiResolve(id))
    }
  })
})

// NODE_PATH, the folder a process starts in and which node_modules lie above the config all
// change what jiti finds: each is set for a process of its own, which resolves with both.
describe('esmResolve in a process of its own, as jiti resolves there', () => {
  const probe = (cwd: string, nodePath: string | undefined, config: string, ids: string[]): { id: string; ours?: string; jiti?: string }[] => {
    const env = { ...process.env }
    delete env['NODE_PATH']
    delete env['NODE_OPTIONS']
    if (nodePath !== undefined) env['NODE_PATH'] = nodePath
    const script = [
      `const { createJiti } = await import(${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('jiti')).href)})`,
      `const { esmResolve } = await createJiti(import.meta.url).import(${JSON.stringify(fileURLToPath(new URL('./node-resolve.ts', import.meta.url)))})`,
      `const [parentURL, ...ids] = process.argv.slice(1)`,
      `const jiti = createJiti(parentURL, { interopDefault: false })`,
      `console.log(JSON.stringify(ids.map((id) => ({ id, ours: esmResolve(id, parentURL), jiti: jiti.esmResolve(id, { parentURL, try: true }) }))))`,
    ].join('\n')
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, pathToFileURL(join(root, config)).href, ...ids], { cwd, env, encoding: 'utf8' })
    expect(result.stderr).toBe('')
    return JSON.parse(result.stdout) as { id: string; ours?: string; jiti?: string }[]
  }

  beforeAll(() => {
    write({
      'lonely/bosun.config.json': '{}',
      'store/node_modules/requirable/package.json': { exports: { require: './r.cjs', import: './i.mjs' } },
      'store/node_modules/requirable/r.cjs': cjs,
      'store/node_modules/requirable/i.mjs': js,
      'store/node_modules/import-only/package.json': { type: 'module', exports: { '.': { import: './index.js' }, './package.json': './package.json' } },
      'store/node_modules/import-only/index.js': js,
      'store/node_modules/on-node-path/package.json': { main: 'index.js' },
      'store/node_modules/on-node-path/index.js': cjs,
      'cwd/node_modules/in-cwd/package.json': { main: 'index.js' },
      'cwd/node_modules/in-cwd/index.js': cjs,
    })
  })

  it('a config with no node_modules above it, NODE_PATH holding packages (pnpm sets it to its store): found there only when require finds them', () => {
    const ids = ['requirable', 'import-only', 'import-only/package.json', 'on-node-path', 'in-cwd', 'nowhere']
    const answers = probe(join(root, 'cwd'), join(root, 'store/node_modules'), 'lonely/bosun.config.js', ids)
    for (const { id, ours, jiti } of answers) expect(ours, id).toBe(jiti)
    expect(Object.fromEntries(answers.map(({ id, ours }) => [id, ours]))).toEqual({
      // `exports` read with require's conditions, not import's.
      requirable: url('store/node_modules/requirable/r.cjs'),
      // Only `import`: require cannot have it, so it is not installed (the release rehearsal's SQLite store).
      'import-only': undefined,
      'import-only/package.json': url('store/node_modules/import-only/package.json'),
      'on-node-path': url('store/node_modules/on-node-path/index.js'),
      // The folder the process started in is never searched.
      'in-cwd': undefined,
      nowhere: undefined,
    })
  })

  it('the same config without NODE_PATH: none of them', () => {
    const answers = probe(join(root, 'cwd'), undefined, 'lonely/bosun.config.js', ['requirable', 'on-node-path', 'in-cwd'])
    for (const { id, ours, jiti } of answers) expect(ours, id).toBe(jiti)
    expect(answers.map(({ ours }) => ours)).toEqual([undefined, undefined, undefined])
  })

  it("a config in the project, with NODE_PATH: the project's node_modules first", () => {
    write({ 'app/project/node_modules/on-node-path/package.json': { exports: { import: './mine.mjs' } }, 'app/project/node_modules/on-node-path/mine.mjs': js })
    const answers = probe(root, join(root, 'store/node_modules'), 'app/project/bosun.config.js', ['on-node-path', 'requirable', 'dual', 'shadow'])
    for (const { id, ours, jiti } of answers) expect(ours, id).toBe(jiti)
    expect(answers.map(({ ours }) => ours)).toEqual([url('app/project/node_modules/on-node-path/mine.mjs'), url('store/node_modules/requirable/r.cjs'), url('app/project/node_modules/dual/esm.mjs'), url('app/node_modules/shadow/index.js')])
  })
})
