import { beforeAll, describe } from 'vitest'
import { GUARD_PLUGIN, CLOCK_TOOL, bosun, requireBuild, writeProject, it } from './helpers.js'

beforeAll(requireBuild)


/** An adapter module with options that name a secret by variable, plus one that looks like a key. */
const FAKE_ADAPTER = `export default {
  kind: 'bosun-adapter',
  name: 'fake',
  schema: { type: 'object', properties: { model: { type: 'string' }, apiKeyEnv: { type: 'string' }, organization: { type: 'string' } }, additionalProperties: false },
  create: (options) => ({ name: 'fake', model: options.model, async *stream() { yield { type: 'text-delta', text: 'hi' }; yield { type: 'finish', reason: 'stop' } } }),
}
`

describe.concurrent('bosun config check', () => {
  it('redacts a key pasted into the model field, on the model line too', async ({ dir, expect }) => {
    await writeProject(dir, { model: { adapter: './fake-adapter.mjs', options: { model: 'sk-proj-abcdefghijklmnopqrstuvwxyz' } } }, { 'fake-adapter.mjs': FAKE_ADAPTER })
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.stdout).toContain('model    <redacted>')
    expect(result.stdout + result.stderr).not.toContain('sk-proj')
  })

  it('summarises the composed agent: adapter and model, store, system prompt, plugins in order with their hooks, tools', async ({ dir, expect }) => {
    await writeProject(
      dir,
      {
        model: { adapter: './fake-adapter.mjs', options: { model: 'fake-large', apiKeyEnv: 'FAKE_API_KEY', organization: 'sk-proj-abcdefghijklmnopqrstuv' } },
        store: ['store-jsonl', { dir: 'var/sessions' }],
        system: 'You are a careful assistant.',
        plugins: [['./guard.mjs', { word: 'classified' }]],
        tools: ['./tools/clock.mjs'],
      },
      { 'fake-adapter.mjs': FAKE_ADAPTER, 'guard.mjs': GUARD_PLUGIN, 'tools/clock.mjs': CLOCK_TOOL },
    )
    const result = await bosun(['config', 'check'], { cwd: dir, env: { FAKE_API_KEY: 'the-real-secret-value' } })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout.replace(/plugin-store-jsonl \S+/, 'plugin-store-jsonl <version>')).toMatchInlineSnapshot(`
      "config   bosun.config.json
      adapter  fake  ./fake-adapter.mjs
               options: model: "fake-large", apiKeyEnv: "FAKE_API_KEY", organization: "<redacted>"
      model    fake-large
      store    store-jsonl  @bosun/plugin-store-jsonl <version> (bundled with bosun)
               options: dir: "var/sessions"
      system   "You are a careful assistant." (28 characters)
      plugins  1. guard  ./guard.mjs
                  options: word: "classified"
                  hooks: agent/pre-step, session/event
      tools    clock

      ✓ the config is valid
      "
    `)
    expect(result.stdout).not.toContain('the-real-secret-value')
    expect(result.stdout).not.toContain('sk-proj')
  })

  it('never prints a password inside an option\'s string (a connection string), which the loader accepts under a plain key', async ({ dir, expect }) => {
    const plugin = "export default { kind: 'bosun-plugin', name: 'reports', setup() {} }\n"
    await writeProject(dir, { plugins: [['./reports.mjs', { table: 'runs', dsn: 'Server=db;User Id=app;Password=hunter2-IN-DSN' }]] }, { 'reports.mjs': plugin })
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('   options: table: "runs", dsn: "<redacted>"\n')
    expect(result.stdout + result.stderr).not.toContain('hunter2')
  })

  it('shows a plugin\'s options as written: a model entry in them by its adapter name, not the definition it resolved to', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: [['compaction', { contextWindow: 1000, model: { adapter: 'scripted', options: { responses: [] } } }]] })
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('   options: contextWindow: 1000, model: {"adapter":"scripted","options":{"responses":[]}}\n')
    expect(result.stdout).not.toContain('"schema"')
  })

  it('with no config, shows the defaults: the scripted model and JSONL sessions under .bosun/sessions', async ({ dir, expect }) => {
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`config   none found (searched from ${dir} up to the project root): the defaults apply`)
    expect(result.stdout).toMatch(/adapter  scripted {2}@bosun\/adapter-scripted \S+ \(bundled with bosun\)\nmodel    \(the adapter's default\)\n/)
    expect(result.stdout).toMatch(/store {4}store-jsonl {2}@bosun\/plugin-store-jsonl \S+ \(the CLI's default store\)\n {9}dir: \.bosun\/sessions/)
  })

  it('prints every problem with the file and its JSON path, as a coded error without a stack trace', async ({ dir, expect }) => {
    await writeProject(dir, {
      model: { adapter: 'scripted', options: { responses: 'not a list' } },
      plugns: [],
      plugins: ['./missing-plugin.mjs', ['./guard.mjs', { word: 42 }]],
    }, { 'guard.mjs': GUARD_PLUGIN })
    const result = await bosun(['config', 'check'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe(`error CONFIG_INVALID: Invalid config ${dir}/bosun.config.json:`)
    expect(lines.slice(1).map((line) => line.replace(/ \(found.*$|: must.*$|: cannot.*$/, ''))).toEqual([
      '  - $.plugns: unknown key "plugns" — did you mean "plugins"?',
      '  - $.model.options.responses (adapter "scripted")',
      `  - $.plugins[0] (plugin "./missing-plugin.mjs")`,
      '  - $.plugins[1][1].word (plugin "./guard.mjs")',
    ])
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  it('an option a plugin\'s setup refuses (a pattern that does not compile) reads as a config problem: the file, its path in it, the entry', async ({ dir, expect }) => {
    // content-filter compiles its patterns in setup; its error's paths start at the options' root.
    await writeProject(dir, { plugins: ['retry', ['content-filter', { rules: [{ id: 'r', action: 'reject', pattern: 'ok' }, { id: 'p', action: 'reject', pattern: '(' }] }]] })
    for (const args of [['config', 'check'], ['run', 'hi']]) {
      const result = await bosun(args, { cwd: dir })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`error CONFIG_INVALID: Invalid config ${dir}/bosun.config.json:\n  - $.plugins[1][1].rules[1].pattern (plugin "content-filter"): must be a valid regular expression: Invalid regular expression: /(/g: Unterminated group`)
    }
  })

  it('--debug adds the stack trace and the causes', async ({ dir, expect }) => {
    await writeProject(dir, undefined, { 'bosun.config.json': '{ "model": ' })
    const [plain, debug] = await Promise.all([bosun(['config', 'check'], { cwd: dir }), bosun(['config', 'check', '--debug'], { cwd: dir })])
    expect(plain.code).toBe(1)
    expect(plain.stderr).toMatch(/^error CONFIG_INVALID: Invalid config .*bosun\.config\.json:\n {2}- \$: /)
    expect(plain.stderr).not.toMatch(/\n\s+at /)
    expect(debug.code).toBe(1)
    expect(debug.stderr).toMatch(/\n\s+at /)
  })

  it('--config names the file to load, relative to the cwd', async ({ dir, expect }) => {
    await writeProject(dir, undefined, { 'configs/staging.json': JSON.stringify({ system: 'staging' }) })
    const [result, missing] = await Promise.all([
      bosun(['--config', 'configs/staging.json', 'config', 'check'], { cwd: dir }),
      bosun(['config', 'check', '--config', 'nope.json'], { cwd: dir }),
    ])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('config   configs/staging.json')
    expect(result.stdout).toMatch(/dir: configs\/\.bosun\/sessions/)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('nope.json')
  })
})
