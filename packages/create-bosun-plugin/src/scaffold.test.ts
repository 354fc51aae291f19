// The scaffold end to end, as a user runs it: the built command writes a package, and that
// package type-checks, builds and passes its own tests. The package is written inside the
// workspace (`<root>/.scaffold-test/`, git-ignored, outside every test and tsconfig glob) so that
// Node's resolution walks up to the workspace's node_modules, where @bosun/core, @bosun/testkit,
// typescript and vitest are linked; their types and code come from the packages' dist/.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, rm, rmdir, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dependencyRanges } from './versions.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const bin = fileURLToPath(new URL('../bin/create-bosun-plugin.mjs', import.meta.url))
const tsc = join(root, 'node_modules/typescript/bin/tsc')
const vitest = join(root, 'node_modules/vitest/vitest.mjs')
const dir = join(root, '.scaffold-test', `my-guard-${process.pid}-${Date.now()}`)

interface Run {
  code: number | null
  output: string
}

/** Runs `node ...args` and collects its exit code and output (never rejects: tests assert on both). */
function node(args: string[], cwd = root): Promise<Run> {
  // A child vitest must not think it is a worker of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')))
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}`.replace(/\x1b\[[\d;]*m/g, '') }),
    )
  })
}

/** Runs `npm ...args` in `cwd`: its scripts find tsc and vitest in the workspace's node_modules/.bin. */
function npm(args: string[], cwd: string): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST') && !key.startsWith('npm_')))
  return new Promise((resolve) => {
    execFile('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}`.replace(/\x1b\[[\d;]*m/g, '') }),
    )
  })
}

beforeAll(async () => {
  // The command runs dist/cli.js; the generated package compiles against core's and the kit's dist/.
  // tsc -b is incremental (quick when current). Another test file may be building the same
  // projects at this moment, and a concurrent tsc -b can read a half-written output: try twice.
  const build = [tsc, '-b', 'packages/testkit', 'packages/create-bosun-plugin']
  let result = await node(build)
  if (result.code !== 0) result = await node(build)
  expect(result.code, result.output).toBe(0)
}, 240_000)

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
  await rmdir(dirname(dir)).catch(() => {}) // still in use by a concurrent run: leave it
})

describe('create-bosun-plugin my-guard', () => {
  it('writes a package named bosun-plugin-my-guard with the bosun-plugin keyword and the hooks manifest', async () => {
    const run = await node([bin, 'my-guard', '--dir', dir])
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain(`Created the plugin package bosun-plugin-my-guard in the folder ./${relative(root, dir)}/:`)
    for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src/index.ts', 'src/options.ts', 'src/index.test.ts', 'README.md', '.changeset/initial.md', '.changeset/config.json', '.gitignore', 'vitest.config.ts']) {
      expect(existsSync(join(dir, file)), file).toBe(true)
    }
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'))
    expect(manifest).toMatchObject({
      name: 'bosun-plugin-my-guard',
      type: 'module',
      keywords: expect.arrayContaining(['bosun-plugin']),
      bosun: { kind: 'plugin', hooks: ['agent/pre-step'], options: './schema.json', core: dependencyRanges['@bosun/core'] },
      files: ['dist', 'schema.json'],
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
      peerDependencies: { '@bosun/core': dependencyRanges['@bosun/core'] },
      devDependencies: { '@bosun/testkit': dependencyRanges['@bosun/testkit'], typescript: dependencyRanges.typescript, vitest: dependencyRanges.vitest },
    })
    expect(JSON.stringify(manifest)).not.toContain('workspace:')
    expect(await readFile(join(dir, 'src/index.ts'), 'utf8')).toContain("name: 'my-guard'")
  })

  it('type-checks, sources and tests, against the workspace build', async () => {
    const run = await node([tsc, '-p', join(dir, 'tsconfig.json'), '--noEmit'])
    expect(run.code, run.output).toBe(0)
  }, 120_000)

  it('still type-checks once the tap returns a second kind of rejection, with metadata of its own', async () => {
    // The first edit an author makes: another reason to reject. Without the tap's return type,
    // TypeScript infers a union of the two metadata shapes (`word?: undefined`) that is not JSON,
    // and the author gets ten lines about PreStepDecision for correct code.
    const file = join(dir, 'src/index.ts')
    const generated = await readFile(file, 'utf8')
    const guard = '      if (decision.kind !== \'enter\') return decision\n'
    expect(generated).toContain(guard)
    const edited = generated.replace(guard, `${guard}      if (decision.messages.length > 1000) return { kind: 'reject', metadata: { reason: 'too-many', count: decision.messages.length } }\n`)
    await writeFile(file, edited)
    try {
      const run = await node([tsc, '-p', join(dir, 'tsconfig.json'), '--noEmit'])
      expect(run.code, run.output).toBe(0)
    } finally {
      await writeFile(file, generated)
    }
  }, 120_000)

  it('builds dist/ with declarations and without the tests', async () => {
    const run = await node([tsc, '-p', join(dir, 'tsconfig.build.json')])
    expect(run.code, run.output).toBe(0)
    expect(existsSync(join(dir, 'dist/index.js'))).toBe(true)
    expect(existsSync(join(dir, 'dist/index.d.ts'))).toBe(true)
    expect(existsSync(join(dir, 'dist/options.js'))).toBe(true)
    expect(existsSync(join(dir, 'dist/index.test.js'))).toBe(false)
    // The build's second half: schema.json, which "bosun.options" names, written from src/options.ts.
    const schema = await node([join(dir, 'scripts/write-schema.mjs')], dir)
    expect(schema.code, schema.output).toBe(0)
    const { optionsSchema } = await import(join(dir, 'dist/options.js'))
    expect(JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'))).toEqual(optionsSchema)
  }, 120_000)

  it('passes its own tests (@bosun/testkit on the scripted model) with the workspace vitest', async () => {
    const run = await node([vitest, 'run', '--root', dir], dir)
    expect(run.code, run.output).toBe(0)
    expect(run.output).toMatch(/Tests\s+5 passed \(5\)/)
  }, 120_000)

  it('the built module default-exports a plugin named my-guard with its options schema', async () => {
    const { default: plugin, optionsSchema } = await import(join(dir, 'dist/index.js'))
    expect(plugin).toMatchObject({ kind: 'bosun-plugin', name: 'my-guard', schema: optionsSchema })
  })

  it("npm publish's prepublishOnly builds before it tests: an option changed since the last build publishes", async () => {
    // schema.json is written by the build, and the generated test compares it with the plugin's
    // schema: run before the build, that test failed on any options change ("rebuild it"), so
    // `npm publish` refused what its own build would have fixed.
    const file = join(dir, 'src/options.ts')
    const generated = await readFile(file, 'utf8')
    await writeFile(file, generated.replace("description: 'Match regardless of case.'", "description: 'Match regardless of case (Unicode lower case).'"))
    try {
      const run = await npm(['run', 'prepublishOnly'], dir)
      expect(run.code, run.output).toBe(0)
      expect(JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8')).properties.ignoreCase.description).toBe('Match regardless of case (Unicode lower case).')
    } finally {
      await writeFile(file, generated)
    }
  }, 240_000)
})

describe('dependency ranges', () => {
  it("admit the workspace's own TypeScript, vitest and @types/node", async () => {
    const workspace = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).devDependencies
    for (const name of ['typescript', 'vitest', '@types/node'] as const) {
      expect(dependencyRanges[name], name).toBe(`^${workspace[name]}`)
    }
  })
})
