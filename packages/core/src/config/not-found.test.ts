import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ModelAdapter } from '../model.js'
import { definePlugin } from '../plugin.js'
import { configNameOf, FIRST_PARTY_PACKAGES, notFoundMessage } from './not-found.js'
import { candidatePackages } from './resolve.js'
import type { BosunConfig, BundledModules, PluginConfig } from './types.js'
import { validateConfig } from './validate.js'

// Each test runs in a folder outside the workspace, so only what it installs there is installed.
let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'bosun-not-found-')))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

/** A ready model, so that the default adapter need not resolve from the temp folder. */
const model: ModelAdapter = { name: 'fixed', stream: async function* () {} } as unknown as ModelAdapter

/** Writes an installed package whose default export is a plugin named `pluginName`. */
async function install(packageName: string, pluginName: string): Promise<void> {
  const folder = join(dir, 'node_modules', packageName)
  await mkdir(folder, { recursive: true })
  await writeFile(join(folder, 'package.json'), JSON.stringify({ name: packageName, version: '1.0.0', type: 'module', exports: './index.js' }))
  await writeFile(join(folder, 'index.js'), `export default { kind: 'bosun-plugin', name: ${JSON.stringify(pluginName)}, setup() {} }\n`)
}

/** The problem messages validating `config` in the temp folder gives (none when it is valid). */
async function problems(config: BosunConfig, bundled?: BundledModules): Promise<string[]> {
  try {
    await validateConfig({ config: { model: { adapter: model }, ...config }, file: undefined, dir }, bundled === undefined ? {} : { bundled })
    return []
  } catch (error) {
    return ((error as { details: { problems: { message: string }[] } }).details.problems).map((problem) => problem.message)
  }
}

const plugin = (name: string): BosunConfig => ({ plugins: [name as PluginConfig] })

describe('a name that resolves nowhere', () => {
  it('a typo of a first-party plugin gets "did you mean", and no install command', async () => {
    const [message] = await problems(plugin('retyr'))
    expect(message).toContain('tried @bosun/plugin-retyr, then bosun-plugin-retyr')
    expect(message).toMatch(/Did you mean "retry" \(@bosun\/plugin-retry\)\?$/)
    expect(message).not.toContain('npm install')
  })

  it('a typo of a first-party adapter gets "did you mean"', async () => {
    const [message] = await problems({ model: { adapter: 'opnai' } })
    expect(message).toMatch(/Did you mean "openai" \(@bosun\/adapter-openai\)\?$/)
    expect(message).not.toContain('npm install')
  })

  it('a typo of an installed third-party plugin suggests the installed one, short or in full', async () => {
    await install('bosun-plugin-word-guard', 'word-guard')
    const [short] = await problems(plugin('word-gaurd'))
    expect(short).toMatch(/Did you mean "word-guard" \(bosun-plugin-word-guard\)\?$/)
    expect(short).not.toContain('npm install')
    const [full] = await problems(plugin('bosun-plugin-word-gaurd'))
    expect(full).toMatch(/Did you mean "bosun-plugin-word-guard"\?$/)
    expect(full).not.toContain('npm install')
  })

  it('a scoped installed plugin is suggested by its scoped short name', async () => {
    await install('@acme/bosun-plugin-guard', 'guard')
    const [message] = await problems(plugin('@acme/gaurd'))
    expect(message).toMatch(/Did you mean "@acme\/guard" \(@acme\/bosun-plugin-guard\)\?$/)
  })

  it('a first-party package that is not installed gets the command that installs it', () => {
    // Called directly: under vitest every workspace package resolves from anywhere (the release
    // rehearsal, tests/release, sees this message from a real project).
    const message = notFoundMessage({ name: 'store-sqlite', kind: 'store', tried: candidatePackages('store-sqlite', 'store'), dir, bundled: [] })
    expect(message).toBe(
      `cannot be found: @bosun/plugin-store-sqlite is not installed (resolving from ${dir}). It is one of Bosun's own packages: install it (npm install @bosun/plugin-store-sqlite).`,
    )
  })

  it('a third-party name typed in full gets the command that installs it', async () => {
    const [message] = await problems(plugin('bosun-plugin-profanity'))
    expect(message).toBe(`cannot be found: bosun-plugin-profanity is not installed (resolving from ${dir}). Install it (npm install bosun-plugin-profanity) or correct the name.`)
  })

  it('a short name that is close to nothing: no install command with that name, and the known names', async () => {
    const [message] = await problems(plugin('profanity'))
    expect(message).not.toMatch(/npm install (@bosun\/plugin-|bosun-plugin-)profanity/)
    expect(message).toContain("It is not one of Bosun's plugins, and no installed package provides it.")
    expect(message).toContain('Known plugins: compaction, content-filter, rate-limit, retry, step-limit, subagents.')
  })

  it('a name in the @bosun scope that Bosun does not publish gets no install command', async () => {
    const [message] = await problems(plugin('@bosun/plugin-profanity'))
    expect(message).not.toContain('npm install @bosun/plugin-profanity')
  })

  it('a misspelt memory store gets "did you mean"', async () => {
    const [message] = await problems({ store: 'memry' })
    expect(message).toMatch(/Did you mean "memory"\?$/)
  })
})

describe('a package installed without the file its package.json names as entry', () => {
  /** Installs `packageName` with `manifest` as its package.json and no other file (a package published without its dist/). */
  async function installBare(packageName: string, manifest: Record<string, unknown> | string): Promise<string> {
    const folder = join(dir, 'node_modules', packageName)
    await mkdir(folder, { recursive: true })
    await writeFile(join(folder, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify({ name: packageName, version: '1.0.0', type: 'module', ...manifest }))
    return folder
  }

  it('is named, with its entry and what to do — not "did you mean" the same name, by short or full name', async () => {
    const folder = await installBare('bosun-plugin-guard', { exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } } })
    for (const name of ['guard', 'bosun-plugin-guard']) {
      const [message] = await problems(plugin(name))
      expect(message).toBe(
        `cannot be loaded: bosun-plugin-guard is installed at ${folder}, but its package.json names its entry "./dist/index.js", and there is no such file — ` +
          'the package was published or linked without its built files. If it is yours, build it (its "build" script) and make sure "files" in its ' +
          'package.json includes the output, then publish or link it again; otherwise reinstall a version that has them (npm install bosun-plugin-guard).',
      )
      expect(message).not.toContain('Did you mean')
    }
  })

  it('reads the entry from "exports" as a string, from "main", or index.js by default; a scoped one too', async () => {
    await installBare('bosun-plugin-a', { exports: './lib/a.js' })
    await installBare('bosun-plugin-b', { main: 'out/b.js' })
    await installBare('@acme/bosun-plugin-c', {})
    expect((await problems(plugin('a')))[0]).toContain('names its entry "./lib/a.js", and there is no such file')
    expect((await problems(plugin('b')))[0]).toContain('names its entry "out/b.js", and there is no such file')
    expect((await problems(plugin('@acme/c')))[0]).toContain('@acme/bosun-plugin-c is installed at')
    expect((await problems(plugin('@acme/c')))[0]).toContain('names its entry "index.js", and there is no such file')
  })

  it('a "require" target counts, as resolution tries it; an "exports" naming no file for "." says so', async () => {
    // R12: a CommonJS-only package missing its file was told to publish an ES entry, though it
    // loads once the file is there (resolution tries node + require after node + import).
    await installBare('bosun-plugin-cjs', { exports: { '.': { require: './dist/index.cjs' } } })
    expect((await problems(plugin('cjs')))[0]).toContain('names its entry "./dist/index.cjs", and there is no such file')
    await installBare('bosun-plugin-browser', { exports: { '.': { browser: './dist/browser.js' } } })
    expect((await problems(plugin('browser')))[0]).toContain('but the "exports" of its package.json name no file for "." (no "import", "require", "node" or "default" target)')
  })

  it('a package.json that is not JSON: reinstall', async () => {
    const folder = await installBare('bosun-plugin-torn', '{"name": "bosun-plugin-to')
    expect((await problems(plugin('torn')))[0]).toBe(`cannot be loaded: bosun-plugin-torn is installed at ${folder}, but its package.json cannot be read as JSON. Reinstall it (npm install bosun-plugin-torn).`)
  })
})

describe('bundled packages', () => {
  // Third-party names: under vitest, Bosun's own packages resolve from anywhere.
  const bundledExtra: BundledModules = {
    'bosun-plugin-extra': async () => ({ default: definePlugin({ name: 'extra-bundled', setup() {} }) }),
  }
  const names = async (bundled: BundledModules) => {
    const resolved = await validateConfig({ config: { model: { adapter: model }, plugins: ['extra'] }, file: undefined, dir }, { bundled })
    return resolved.plugins.map((entry) => ((Array.isArray(entry) ? entry[0] : entry) as { name: string }).name)
  }

  it('stand in for a package the folder does not have', async () => {
    expect(await names(bundledExtra)).toEqual(['extra-bundled'])
  })

  it('never win over a copy the project installed', async () => {
    await install('bosun-plugin-extra', 'extra-installed')
    expect(await names(bundledExtra)).toEqual(['extra-installed'])
  })

  it('count as known names for "did you mean"', async () => {
    const [message] = await problems(plugin('bosun-plugin-extar'), bundledExtra)
    expect(message).toMatch(/Did you mean "bosun-plugin-extra"\?$/)
  })

  it('that fail to import are reported with the error', async () => {
    const [message] = await problems(plugin('extra'), {
      'bosun-plugin-extra': async () => {
        throw new Error('boom')
      },
    })
    expect(message).toBe('bosun-plugin-extra failed to load: boom')
  })
})

describe('configNameOf', () => {
  it.each([
    ['@bosun/plugin-retry', 'plugin', 'retry'],
    ['@bosun/plugin-store-jsonl', 'store', 'store-jsonl'],
    ['bosun-plugin-word-guard', 'plugin', 'word-guard'],
    ['@acme/bosun-plugin-x', 'plugin', '@acme/x'],
    ['@bosun/adapter-openai', 'adapter', 'openai'],
    ['bosun-adapter-ollama', 'adapter', 'ollama'],
    ['left-pad', 'plugin', undefined],
    ['@bosun/plugin-retry', 'adapter', undefined],
  ] as const)('%s (%s) → %s', (name, kind, expected) => {
    expect(configNameOf(name, kind)).toBe(expected)
  })
})

describe('FIRST_PARTY_PACKAGES', () => {
  it('lists every adapter and plugin package of the workspace, and nothing else', () => {
    const root = join(import.meta.dirname, '../../../..')
    const names = ['packages/adapters', 'packages/plugins'].flatMap((folder) =>
      readdirSync(join(root, folder)).map((name) => (JSON.parse(readFileSync(join(root, folder, name, 'package.json'), 'utf8')) as { name: string }).name),
    )
    expect(Object.values(FIRST_PARTY_PACKAGES).flat().sort()).toEqual(names.sort())
  })
})
