import { existsSync } from 'node:fs'
import { lstat, mkdir, readFile, readdir, rmdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)

const FILES = { ts: 'bosun.config.ts', json: 'bosun.config.json', yaml: 'bosun.config.yaml' } as const
type Format = keyof typeof FILES

/** The model entries the written file (its comments) or, for JSON, the printed hints offer instead of the scripted one. */
function providerAlternatives(format: Format, text: string, stdout: string): string[] {
  if (format === 'json') return [...stdout.matchAll(/^ {2}(\{ "adapter".*\})/gm)].map((match) => match[1]!)
  const comment = format === 'ts' ? '//' : '#'
  return [...text.matchAll(new RegExp(`^\\s*${comment}\\s+(model: \\{ adapter: .*\\}),?(?:\\s+${comment}.*)?$`, 'gm'))].map((match) => match[1]!)
}

/** `text` with the scripted model swapped for `alternative` (a commented line, or a printed JSON hint). */
function withModel(format: Format, text: string, alternative: string): string {
  if (format === 'json') return JSON.stringify({ ...JSON.parse(text), model: JSON.parse(alternative) })
  return format === 'ts' ? text.replace("model: { adapter: 'scripted' },", `${alternative},`) : text.replace('model:\n  adapter: scripted', alternative)
}

describe.concurrent('bosun init', () => {
  it.for(Object.keys(FILES) as Format[])('--format %s writes a config that config check accepts and bosun run answers with, offline', async (format, { dir, expect }) => {
    const init = await bosun(format === 'ts' ? ['init'] : ['init', '--format', format], { cwd: dir })
    expect(init.stderr).toBe('')
    expect(init.code).toBe(0)
    expect(init.stdout).toMatch(new RegExp(`^Wrote ${FILES[format].replace('.', '\\.')}: the scripted model \\(offline, no key; it echoes each message\\), sessions in \\.bosun/sessions\\.\n`))
    // Not a terminal: no colour.
    expect(init.stdout).not.toContain('\u001b[')
    expect(init.stdout.endsWith('\nNext:\n  bosun config check  check it and see the agent it composes\n  bosun run "hi"      one turn, offline\n')).toBe(true)
    expect(await readdir(dir)).toEqual([FILES[format]])

    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.stderr).toBe('')
    expect(check.code).toBe(0)
    expect(check.stdout).toContain(`config   ${FILES[format]}\nadapter  scripted`)
    expect(check.stdout).toContain('store    store-jsonl')
    expect(check.stdout).toContain('options: dir: ".bosun/sessions"')

    const run = await bosun(['run', 'hi'], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('echo: hi\n')
    expect((await readdir(join(dir, '.bosun/sessions'))).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1)
  })

  it.for(Object.keys(FILES) as Format[])('--format %s: each real provider it offers is a valid model that names the variable its key is read from', async (format, { dir, expect }) => {
    const init = await bosun(['init', '--format', format], { cwd: dir })
    const text = await readFile(join(dir, FILES[format]), 'utf8')
    const alternatives = providerAlternatives(format, text, init.stdout)
    expect(alternatives.map((line) => /openai|anthropic/.exec(line)?.[0])).toEqual(['openai', 'anthropic', 'openai'])
    for (const [index, alternative] of alternatives.entries()) {
      await writeFile(join(dir, FILES[format]), withModel(format, text, alternative))
      const keys = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, DEEPSEEK_API_KEY: undefined }
      const variable = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DEEPSEEK_API_KEY'][index]!
      const [without, withKey] = await Promise.all([
        bosun(['config', 'check'], { cwd: dir, env: keys }),
        bosun(['config', 'check'], { cwd: dir, env: { ...keys, [variable]: 'a-test-key' } }),
      ])
      expect(without.code, alternative).toBe(1)
      expect(without.stderr, alternative).toContain(variable)
      expect(withKey.stderr, alternative).toBe('')
      expect(withKey.code, alternative).toBe(0)
      if (format !== 'json') expect(text, 'the comment names the variable').toContain(variable)
    }
  })

  it('refuses to overwrite a config the loader finds here, naming it and --force; nothing is written', async ({ dir, expect }) => {
    await writeFile(join(dir, '.bosunrc.yaml'), 'system: mine\n')
    await writeFile(join(dir, 'bosun.config.ts'), 'export default {}\n')
    const result = await bosun(['init', '--format', 'json'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `error CONFIG_EXISTS: .bosunrc.yaml, bosun.config.ts already exist in ${dir}: that is the config found here. bosun config check shows what it composes; bosun init --force replaces it with a new bosun.config.json (removing .bosunrc.yaml, bosun.config.ts).\n`,
    )
    expect((await readdir(dir)).sort()).toEqual(['.bosunrc.yaml', 'bosun.config.ts'])
    expect(await readFile(join(dir, 'bosun.config.ts'), 'utf8')).toBe('export default {}\n')

    const same = await bosun(['init'], { cwd: dir })
    expect(same.code).toBe(1)
    expect(same.stderr).toContain('bosun init --force replaces it with a new bosun.config.ts (removing .bosunrc.yaml, bosun.config.ts).')
    expect(await readFile(join(dir, 'bosun.config.ts'), 'utf8')).toBe('export default {}\n')
  })

  it('--force replaces: the new file is written and every other config of the folder removed, so it is the one found', async ({ dir, expect }) => {
    await writeFile(join(dir, '.bosunrc'), 'system: old\n')
    await writeFile(join(dir, 'bosun.config.yaml'), 'system: old\n')
    await mkdir(join(dir, 'sub'))
    const result = await bosun(['init', '--force'], { cwd: dir })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Wrote bosun\.config\.ts: .*\nRemoved \.bosunrc, bosun\.config\.yaml \(--force\), so that bosun\.config\.ts is the config found here\.\n/)
    expect((await readdir(dir)).sort()).toEqual(['bosun.config.ts', 'sub'])
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.stdout).toContain('config   bosun.config.ts\n')
    expect(check.stdout).toContain('system   "You are a helpful assistant."')

    const again = await bosun(['init', '--force', '--format', 'yaml'], { cwd: dir })
    expect(again.stdout).toMatch(/^Wrote bosun\.config\.yaml: .*\nRemoved bosun\.config\.ts \(--force\)/)
    expect((await readdir(dir)).sort()).toEqual(['bosun.config.yaml', 'sub'])
    const over = await bosun(['init', '--force', '--format', 'yaml'], { cwd: dir })
    expect(over.stdout).toMatch(/^Replaced bosun\.config\.yaml: /)
  })

  it('--force replaces a link to a config, not the file it links to', async ({ dir, expect }) => {
    await mkdir(join(dir, 'shared'))
    await writeFile(join(dir, 'shared/team.config.ts'), 'export default { system: "the team\'s" }\n')
    await symlink('shared/team.config.ts', join(dir, 'bosun.config.ts'))
    const refused = await bosun(['init'], { cwd: dir })
    expect(refused.stderr).toMatch(/^error CONFIG_EXISTS: bosun\.config\.ts already exists in /)
    const result = await bosun(['init', '--force'], { cwd: dir })
    expect(result.stdout).toMatch(/^Replaced bosun\.config\.ts: /)
    expect((await lstat(join(dir, 'bosun.config.ts'))).isSymbolicLink()).toBe(false)
    expect(await readFile(join(dir, 'bosun.config.ts'), 'utf8')).toContain("model: { adapter: 'scripted' }")
    expect(await readFile(join(dir, 'shared/team.config.ts'), 'utf8')).toBe('export default { system: "the team\'s" }\n')
    expect((await readdir(dir)).sort()).toEqual(['bosun.config.ts', 'shared'])
  })

  it('--force checks everything it replaces before writing: a folder at a config\'s name is refused and nothing is written', async ({ dir, expect }) => {
    await mkdir(join(dir, '.bosunrc'))
    await writeFile(join(dir, 'bosun.config.yaml'), 'system: old\n')
    const result = await bosun(['init', '--force'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(`error CONFIG_NOT_WRITTEN: Cannot replace ${join(dir, '.bosunrc')}: it is a folder. Nothing was written. Move or remove the folder yourself, then run bosun init --force again.\n`)
    expect((await readdir(dir)).sort()).toEqual(['.bosunrc', 'bosun.config.yaml'])
    expect(await readFile(join(dir, 'bosun.config.yaml'), 'utf8')).toBe('system: old\n')

    // The file it would write, a folder: refused the same way, before anything is written.
    await rmdir(join(dir, '.bosunrc'))
    await mkdir(join(dir, 'bosun.config.json'))
    const target = await bosun(['init', '--force', '--format', 'json'], { cwd: dir })
    expect(target.code).toBe(1)
    expect(target.stderr).toMatch(/^error CONFIG_NOT_WRITTEN: Cannot replace .*\/bosun\.config\.json: it is a folder\. Nothing was written\./)
    expect((await readdir(dir)).sort()).toEqual(['bosun.config.json', 'bosun.config.yaml'])
    expect(await readFile(join(dir, 'bosun.config.yaml'), 'utf8')).toBe('system: old\n')
  })

  it('--force writes through a temporary file of its own: one a killed run left under the same process id does not stop it, and none is left', async ({ dir, expect }) => {
    await writeFile(join(dir, 'bosun.config.yaml'), 'system: old\n')
    // Before the CLI runs, its own process id's temporary name is taken, as by a killed run whose id came round again.
    const leftover = "import{writeFileSync}from'node:fs';writeFileSync(process.cwd()+'/bosun.config.ts.'+process.pid+'.tmp','left by a killed run')"
    const result = await bosun(['init', '--force'], { cwd: dir, env: { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(leftover)}` } })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const names = await readdir(dir)
    expect(names.filter((name) => name.endsWith('.tmp'))).toHaveLength(1)
    expect(names.filter((name) => !name.endsWith('.tmp'))).toEqual(['bosun.config.ts'])
    expect(await readFile(join(dir, 'bosun.config.ts'), 'utf8')).toContain("model: { adapter: 'scripted' }")
  })

  it('a package.json the loader fails on (empty, not JSON, not an object) is refused, even with --force: no config beside it would load', async ({ dir, expect }) => {
    const manifests: [text: string, what: string][] = [['', 'is not valid JSON'], ['  \n', 'is not valid JSON'], ['{ "name": "app", }', 'is not valid JSON'], ['null', 'is null, not an object'], ['[]', 'is an array, not an object']]
    for (const [text, what] of manifests) {
      await writeFile(join(dir, 'package.json'), text)
      const results = await Promise.all([bosun(['init'], { cwd: dir }), bosun(['init', '--force', '--format', 'yaml'], { cwd: dir })])
      for (const result of results) {
        expect(result.code, text).toBe(1)
        expect(result.stdout, text).toBe('')
        expect(result.stderr, text).toBe(
          `error PACKAGE_JSON_INVALID: package.json in ${dir} ${what} — fix or remove it first. The config loader reads it before any bosun.config.*, so a config written beside it would never be loaded.\n`,
        )
      }
      expect(await readdir(dir), text).toEqual(['package.json'])
    }
  })

  it('a package.json with a byte-order mark is read as the loader reads it: init writes, and its file is the one found', async ({ dir, expect }) => {
    await writeFile(join(dir, 'package.json'), '\uFEFF{"name": "app"}\n')
    const init = await bosun(['init', '--format', 'json'], { cwd: dir })
    expect(init.stderr).toBe('')
    expect(init.code).toBe(0)
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.code, check.stderr).toBe(0)
    expect(check.stdout).toMatch(/^config {3}bosun\.config\.json\n/)
  })

  it('a package.json "bosun": null is no config, as the loader reads it: init writes, and its file is the one found', async ({ dir, expect }) => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', bosun: null }))
    const result = await bosun(['init'], { cwd: dir })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const check = await bosun(['config', 'check'], { cwd: dir })
    expect(check.code).toBe(0)
    expect(check.stdout).toContain('config   bosun.config.ts\n')
  })

  it('a package.json "bosun" key is the config too: refused even with --force (package.json is not edited); one without the key is no config', async ({ dir, expect }) => {
    const manifest = JSON.stringify({ name: 'app', bosun: { system: 'mine' } }, null, 2)
    await writeFile(join(dir, 'package.json'), manifest)
    const results = await Promise.all([bosun(['init'], { cwd: dir }), bosun(['init', '--force'], { cwd: dir })])
    for (const result of results) {
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(
        `error CONFIG_EXISTS: package.json in ${dir} has a "bosun" key: that is the config here, and it is read before bosun.config.ts would be (--force does not edit package.json). Edit the config there, or remove the "bosun" key and run bosun init again.\n`,
      )
    }
    expect(await readdir(dir)).toEqual(['package.json'])
    expect(await readFile(join(dir, 'package.json'), 'utf8')).toBe(manifest)

    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app' }))
    const plain = await bosun(['init'], { cwd: dir })
    expect(plain.code).toBe(0)
    expect(existsSync(join(dir, 'bosun.config.ts'))).toBe(true)
  })

  it('--help documents it; bosun --help lists it; an unknown option, a format it does not write or --config are usage errors', async ({ dir, expect }) => {
    const [help, top, unknown, format, config] = await Promise.all([
      bosun(['init', '--help'], { cwd: dir }),
      bosun(['--help'], { cwd: dir }),
      bosun(['init', '--forse'], { cwd: dir }),
      bosun(['init', '--format', 'toml'], { cwd: dir }),
      bosun(['init', '--config', 'my.yaml'], { cwd: dir }),
    ])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: bosun init \[options\]/)
    const flat = help.stdout.replace(/\s+/g, ' ')
    for (const text of ['--format <format>', '(choices: "ts", "json", "yaml", default: "ts")', '--force', 'Examples: $ bosun init ']) expect(flat).toContain(text)
    expect(top.stdout).toMatch(/\n {2}init \[options\] +write a config to start from/)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^error USAGE: unknown option '--forse'\n\(Did you mean --force\?\)/)
    expect(format.code).toBe(2)
    expect(format.stderr).toBe("error USAGE: option '--format <format>' argument 'toml' is invalid. Allowed choices are ts, json, yaml.\n")
    expect(config.code).toBe(2)
    expect(config.stderr).toContain('error USAGE: bosun init writes bosun.config.<format> in the current folder; --config names a file to load')
    expect(await readdir(dir)).toEqual([])
  })
})
