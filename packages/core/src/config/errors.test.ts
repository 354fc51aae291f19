import { readdirSync } from 'node:fs'
import { inspect } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { BAD_FIXTURE_FILES, buildFixturePackages, configMessage, fixture } from '../testing/config-fixtures.js'
import { loadConfig } from './load.js'

// Every bad config in fixtures/bad, each with its full message. One error lists every problem.
beforeAll(buildFixturePackages, 120_000)

const bad = (name: string) => configMessage(loadConfig({ cwd: fixture(`bad/${name}`), env: {}, file: BAD_FIXTURE_FILES[name] }))

describe('config errors — the file', () => {
  it('invalid YAML: the reason and the position, never a snippet of the file', async () => {
    expect(await bad('invalid-yaml')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/invalid-yaml/bosun.config.yaml:
        - $: the file is not valid YAML: <fixtures>/bad/invalid-yaml/bosun.config.yaml:3:11: bad indentation of a mapping entry. Fix the YAML there (indent with spaces, keys of one level at the same column, every quote closed)."
    `)
  })

  it('invalid JSON: the reason, the line and the column', async () => {
    expect(await bad('invalid-json')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/invalid-json/bosun.config.json:
        - $: the file is not valid JSON: <fixtures>/bad/invalid-json/bosun.config.json:3:1: Expected double-quoted property name. Fix the JSON there (keys and strings in double quotes, no comma after the last item, no comments)."
    `)
  })

  it('a TS config with a syntax error: the parser\'s reason and position', async () => {
    expect(await bad('ts-syntax-error')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/ts-syntax-error/bosun.config.ts:
        - $: the file is not valid TypeScript: <fixtures>/bad/ts-syntax-error/bosun.config.ts:3:3: Unexpected token, expected ",". Fix the TypeScript there (every bracket, brace and quote closed, a comma between properties)."
    `)
  })

  it('a TS config that throws while it runs: the underlying error', async () => {
    expect(await bad('ts-runtime-error')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/ts-runtime-error/bosun.config.ts:
        - $: loading the file threw: TypeError: Cannot read properties of undefined (reading 'name') (thrown at <fixtures>/bad/ts-runtime-error/bosun.config.ts:3)"
    `)
  })

  it('a TS config without a default export: what it exports and what to write', async () => {
    expect(await bad('ts-no-default-export')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/ts-no-default-export/bosun.config.ts:
        - $: the file has no default export (it exports config). Write: export default defineConfig({ … })."
    `)
  })

  it('an empty config file is reported, not skipped', async () => {
    expect(await bad('empty-file')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/empty-file/bosun.config.yaml:
        - $: the file is empty. Give a config object (even {}), or delete the file."
    `)
  })

  it('a JSON config that is not an object', async () => {
    expect(await bad('non-object')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/non-object/bosun.config.json:
        - $: must be a config object such as { "model": …, "plugins": […] } (found ["retry", "rate-limit"])."
    `)
  })

  it('a TS config exporting a string', async () => {
    expect(await bad('non-object-ts')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/non-object-ts/bosun.config.ts:
        - $: must be a config object such as { "model": …, "plugins": […] } (found "openai")."
    `)
  })

  it('package.json#bosun of the wrong type, with the path inside package.json', async () => {
    expect(await bad('package-json-wrong-type')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/package-json-wrong-type/package.json:
        - $.bosun: must be a config object such as { "model": …, "plugins": […] } (found "openai")."
    `)
  })

  it('package.json#bosun with a misspelt key', async () => {
    expect(await bad('package-json-bad-key')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/package-json-bad-key/package.json:
        - $.bosun.modle: unknown key "modle" — did you mean "model"?"
    `)
  })

  it('the file option naming a package.json without a "bosun" key', async () => {
    expect(await bad('file-package-json-without-key')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/file-package-json-without-key/package.json:
        - $.bosun: this package.json has no "bosun" key. Add one with the config, or name a config file."
    `)
  })

  it('the file option naming a file that does not exist', async () => {
    expect(await bad('file-not-found')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/file-not-found/bosun.config.yaml:
        - $: the file does not exist."
    `)
  })
})

describe('config errors — the root schema', () => {
  it('an unknown top-level key, with a "did you mean"', async () => {
    expect(await bad('unknown-key')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/unknown-key/bosun.config.json:
        - $.plugns: unknown key "plugns" — did you mean "plugins"?"
    `)
  })

  it('unknown keys: a suggestion when one is close (or a prefix), else the known keys', async () => {
    expect(await bad('unknown-key-no-suggestion')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/unknown-key-no-suggestion/bosun.config.json:
        - $.colour: unknown key "colour"; the known keys are $schema, model, store, system, plugins, tools, maxParallelTools, logPages.
        - $.systemPrompt: unknown key "systemPrompt" — did you mean "system"?
        - $.maxParallel: unknown key "maxParallel" — did you mean "maxParallelTools"?"
    `)
  })

  it('model is not an object', async () => {
    expect(await bad('model-not-object')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/model-not-object/bosun.config.yaml:
        - $.model: must be an object { "adapter": "scripted", "options"?: {…} } (found "openai")"
    `)
  })

  it('model without adapter, with a misspelt key', async () => {
    expect(await bad('model-section')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/model-section/bosun.config.yaml:
        - $.model.adapter: is required
        - $.model.adaptor: unknown key "adaptor" — did you mean "adapter"?"
    `)
  })

  it('plugins is not an array', async () => {
    expect(await bad('plugins-not-array')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/plugins-not-array/bosun.config.yaml:
        - $.plugins: must be an array of plugins, each a plugin name ("retry"), [name, options] or a plugin object (found "retry")"
    `)
  })

  it('system is a number', async () => {
    expect(await bad('system-number')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/system-number/bosun.config.yaml:
        - $.system: must be a string (found 42)"
    `)
  })

  it('every wrong type at once, each with what was expected and what was found', async () => {
    expect(await bad('wrong-types')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/wrong-types/bosun.config.yaml:
        - $.model.adapter: must be an adapter name ("scripted", "openai"), a package name, a "./path" or an adapter object (found 7)
        - $.store: must be "memory", a store name ("store-jsonl"), [name, options] or a store object (found 12)
        - $.system: must be a string (found ["a", "b"])
        - $.tools: must be an array of tools, each a "./path" or package name of a tool module, or a tool object (found "./tools/clock.ts")
        - $.maxParallelTools: must be an integer (found 2.5)"
    `)
  })

  it('plugin entries of the wrong shape', async () => {
    expect(await bad('plugin-entry-shape')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/plugin-entry-shape/bosun.config.yaml:
        - $.plugins[0]: must be a plugin name ("rate-limit"), [name, options] or a plugin object (found ["retry", 5])
        - $.plugins[1]: must be a plugin name ("rate-limit"), [name, options] or a plugin object (found 42)
        - $.plugins[2]: must be a plugin name ("rate-limit"), [name, options] or a plugin object (found ["retry", {…}, "extra"])
        - $.plugins[3]: must be a plugin name ("rate-limit"), [name, options] or a plugin object (found "")"
    `)
  })

  it('logPages with a zero idle time and an unknown key', async () => {
    expect(await bad('log-pages')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/log-pages/bosun.config.yaml:
        - $.logPages: must be false, or an object { idleMs?, pageEvents? } of positive integers (found an object)"
    `)
  })

  it('maxParallelTools 0', async () => {
    expect(await bad('max-parallel-zero')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/max-parallel-zero/bosun.config.yaml:
        - $.maxParallelTools: must be >= 1 (found 0)"
    `)
  })
})

describe('config errors — resolution', () => {
  it('an unknown adapter: the packages tried, in order', async () => {
    expect(await bad('unknown-adapter')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/unknown-adapter/bosun.config.yaml:
        - $.model.adapter (adapter "nope"): cannot be found: tried @bosun/adapter-nope, then bosun-adapter-nope (resolving from <fixtures>/bad/unknown-adapter). It is not one of Bosun's adapters, and no installed package provides it. Check the spelling; a third-party adapter is installed by its full package name (bosun-adapter-<name> or @scope/bosun-adapter-<name>), then named here. Known adapters: ai-sdk, anthropic, openai, scripted."
    `)
  })

  it('an unknown plugin: the packages tried, in order', async () => {
    expect(await bad('unknown-plugin')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/unknown-plugin/bosun.config.yaml:
        - $.plugins[0] (plugin "nope"): cannot be found: tried @bosun/plugin-nope, then bosun-plugin-nope (resolving from <fixtures>/bad/unknown-plugin). It is not one of Bosun's plugins, and no installed package provides it. Check the spelling; a third-party plugin is installed by its full package name (bosun-plugin-<name> or @scope/bosun-plugin-<name>), then named here. Known plugins: compaction, content-filter, rate-limit, retry, step-limit, subagents."
    `)
  })

  it('a scoped short name is tried as @scope/bosun-plugin-x', async () => {
    expect(await bad('scoped-plugin')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/scoped-plugin/bosun.config.yaml:
        - $.plugins[0] (plugin "@acme/x"): cannot be found: tried @acme/bosun-plugin-x (resolving from <fixtures>/bad/scoped-plugin). It is not one of Bosun's plugins, and no installed package provides it. Check the spelling; a third-party plugin is installed by its full package name (bosun-plugin-<name> or @scope/bosun-plugin-<name>), then named here. Known plugins: compaction, content-filter, rate-limit, retry, step-limit, subagents."
    `)
  })

  it('an unknown store: the packages tried, in order', async () => {
    expect(await bad('unknown-store')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/unknown-store/bosun.config.yaml:
        - $.store (store "nope-store"): cannot be found: tried @bosun/plugin-nope-store, then bosun-plugin-nope-store (resolving from <fixtures>/bad/unknown-store). It is not one of Bosun's stores, and no installed package provides it. Check the spelling; a third-party store is installed by its full package name (bosun-plugin-<name> or @scope/bosun-plugin-<name>), then named here. Known stores: memory, store-jsonl, store-postgres, store-sqlite."
    `)
  })

  it('a ./path that does not exist: the absolute path tried', async () => {
    expect(await bad('missing-path')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/missing-path/bosun.config.yaml:
        - $.plugins[0] (plugin "./missing-plugin.ts"): cannot be found: there is no file at <fixtures>/bad/missing-path/missing-plugin.ts (paths resolve from the config file's folder)."
    `)
  })

  it('a plugin module that throws on import: the underlying error', async () => {
    expect(await bad('plugin-throws')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/plugin-throws/bosun.config.yaml:
        - $.plugins[0] (plugin "./exploding.ts"): ./exploding.ts failed to load: the exploding plugin refuses to load (it needs a license file) (thrown at <fixtures>/bad/plugin-throws/exploding.ts:1)"
    `)
  })

  it('two broken plugins are reported together, the working one after them is not', async () => {
    expect(await bad('two-broken-plugins')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/two-broken-plugins/bosun.config.yaml:
        - $.plugins[0] (plugin "nope"): cannot be found: tried @bosun/plugin-nope, then bosun-plugin-nope (resolving from <fixtures>/bad/two-broken-plugins). It is not one of Bosun's plugins, and no installed package provides it. Check the spelling; a third-party plugin is installed by its full package name (bosun-plugin-<name> or @scope/bosun-plugin-<name>), then named here. Known plugins: compaction, content-filter, rate-limit, retry, step-limit, subagents.
        - $.plugins[1] (plugin "./exploding.ts"): ./exploding.ts failed to load: TypeError: cannot read the rules file (thrown at <fixtures>/bad/two-broken-plugins/exploding.ts:1)"
    `)
  })

  it('a module whose default export is not a plugin', async () => {
    expect(await bad('not-a-plugin')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/not-a-plugin/bosun.config.yaml:
        - $.plugins[0] (plugin "./not-a-plugin.ts"): the default export of ./not-a-plugin.ts is not a plugin made by definePlugin() (found an object). The module should export default definePlugin({ name, schema, setup })."
    `)
  })

  it('a plugin module without a default export', async () => {
    expect(await bad('no-default-export')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/no-default-export/bosun.config.yaml:
        - $.plugins[0] (plugin "./named-only.ts"): ./named-only.ts has no default export (it exports plugin). The module should export default definePlugin({ name, schema, setup })."
    `)
  })

  it('a Bosun module of another kind says where it belongs', async () => {
    expect(await bad('wrong-kind')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/wrong-kind/bosun.config.yaml:
        - $.model.adapter (adapter "./my-plugin.ts"): the default export of ./my-plugin.ts is not an adapter made by defineAdapter() (found a plugin); name it under "plugins" instead.
        - $.store (store "./my-plugin.ts"): the default export of ./my-plugin.ts is not a store made by defineStore() (found a plugin); name it under "plugins" instead.
        - $.plugins[0] (plugin "store-jsonl"): the default export of @bosun/plugin-store-jsonl is not a plugin made by definePlugin() (found a store definition); name it under "store" instead."
    `)
  })

  it('a tool module whose default export is not a tool', async () => {
    expect(await bad('not-a-tool')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/not-a-tool/bosun.config.yaml:
        - $.tools[0] (tool "./tools/not-a-tool.ts"): the default export of ./tools/not-a-tool.ts is not a tool or an array of tools (found an object). The module should export default a tool { name, description, parameters, execute } or an array of them."
    `)
  })

  it('an invalid tool and a missing tool module', async () => {
    expect(await bad('tool-invalid')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/tool-invalid/bosun.config.yaml:
        - $.tools[0] (tool "./tools/bad-name.ts"): the default export of ./tools/bad-name.ts is not a valid tool: "name" must be 1-64 letters, digits, "_" or "-".
        - $.tools[1] (tool "./tools/missing.ts"): cannot be found: there is no file at <fixtures>/bad/tool-invalid/tools/missing.ts (paths resolve from the config file's folder)."
    `)
  })

  it('two tools with the same name', async () => {
    expect(await bad('duplicate-tools')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/duplicate-tools/bosun.config.yaml:
        - $.tools[1] (tool "clock"): a tool named "clock" is already given by $.tools[0]; tool names must be unique."
    `)
  })
})

describe('config errors — options', () => {
  it('plugin options failing the plugin\'s schema: every error, each with its path', async () => {
    expect(await bad('plugin-options')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/plugin-options/bosun.config.yaml:
        - $.plugins[0][1].tagg (plugin "./my-plugin.ts"): unknown key "tagg" — did you mean "tag"?
        - $.plugins[0][1].tag (plugin "./my-plugin.ts"): must not be empty (found "")
        - $.plugins[0][1].repeat (plugin "./my-plugin.ts"): must be >= 1 (found 0)"
    `)
  })

  it('a plugin named without the options its schema requires', async () => {
    expect(await bad('plugin-options-missing')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/plugin-options-missing/bosun.config.yaml:
        - $.plugins[0] (plugin "./my-plugin.ts"): option "tag" is required — give options as ["./my-plugin.ts", { … }]"
    `)
  })

  it('options failing the scripted adapter\'s schema', async () => {
    expect(await bad('scripted-options')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/scripted-options/bosun.config.yaml:
        - $.model.options.recrd (adapter "scripted"): unknown key "recrd" — did you mean "record"?
        - $.model.options.responses[0].chunkSize (adapter "scripted"): must be >= 1 (found 0)
        - $.model.options.responses[1].finish (adapter "scripted"): must be one of "stop", "tool-calls", "max-tokens", "content-filter" (found "done")
        - $.model.options.responses[1].delayMs (adapter "scripted"): must be a number from 0 to 2147483647 (found -1)"
    `)
  })

  it('store-jsonl named without options', async () => {
    expect(await bad('store-no-options')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/store-no-options/bosun.config.yaml:
        - $.store (store "store-jsonl"): option "dir" is required — give options as ["store-jsonl", { … }]"
    `)
  })

  it('a store named without the options its schema requires as a whole: says none were given', async () => {
    expect(await bad('store-url-no-options')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/store-url-no-options/bosun.config.yaml:
        - $.store (store "./url-store.ts"): takes options and none were given: they must be an object with exactly one of "url" and "urlEnv" — give options as ["./url-store.ts", { … }]"
    `)
  })

  it('store-jsonl without dir and with a misspelt option', async () => {
    expect(await bad('store-options')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/store-options/bosun.config.yaml:
        - $.store[1].dir (store "store-jsonl"): is required
        - $.store[1].batchWindow (store "store-jsonl"): unknown key "batchWindow" — did you mean "batchWindowMs"?"
    `)
  })

  it('the memory store given options', async () => {
    expect(await bad('memory-options')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/memory-options/bosun.config.yaml:
        - $.store[1]: the memory store takes no options; remove them, or name a store that does ("store-jsonl")."
    `)
  })
})

describe('config errors — secrets', () => {
  it('a literal apiKey is refused, and the key is not shown', async () => {
    expect(await bad('literal-api-key')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/literal-api-key/bosun.config.yaml:
        - $.model.options.apiKey (adapter "scripted"): a literal secret in a config file is refused (it would end up in version control and logs). Put it in an environment variable and name it: "apiKeyEnv": "MY_API_KEY"."
    `)
  })

  it('an unset environment variable is named', async () => {
    expect(await bad('missing-env')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/missing-env/bosun.config.yaml:
        - $.plugins[0][1].tokenEnv (plugin "./needs-token.ts"): environment variable "BOSUN_FIXTURE_UNSET_TOKEN" is not set. Set it where bosun runs (export BOSUN_FIXTURE_UNSET_TOKEN=…), or name another variable."
    `)
  })

  it('a secret put where a variable name belongs is refused, and not shown', async () => {
    expect(await bad('env-holds-secret')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/env-holds-secret/bosun.config.yaml:
        - $.plugins[0][1].tokenEnv (plugin "./needs-token.ts"): must name an environment variable (letters, digits and "_", like "MY_API_KEY"), not hold the key itself — put the key in a variable and name it here (the value given is not shown)"
    `)
  })
})

describe('config errors — credentials under ordinary keys', () => {
  it('are never quoted: each is located and says what to do instead, while ordinary values are still quoted', async () => {
    expect(await bad('credentials-in-values')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/credentials-in-values/bosun.config.yaml:
        - $.model.options.baseURL (adapter "./openai-like.ts"): holds a URL with a credential before the host (user:key@); it is refused (it would end up in version control and logs) and not shown. Remove the credential from the URL and put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option).
        - $.model.options.apiKeyEnv (adapter "./openai-like.ts"): must name an environment variable (letters, digits and "_", like "MY_API_KEY"), not hold the key itself — put the key in a variable and name it here (the value given is not shown)
        - $.model.options[<credential>] (adapter "./openai-like.ts"): unknown key that looks like a credential, not shown: put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option).
        - $.model.options.temperature (adapter "./openai-like.ts"): must be a number (found a string that looks like a credential, not shown: put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option))
        - $.model.options.reasoningEffort (adapter "./openai-like.ts"): must be one of "low", "medium", "high" (found "gpt-4o-mini")
        - $.plugins[0][1].maxAttempts (plugin "./attempts.ts"): must be an integer (found a string that looks like a credential, not shown: put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option))
        - $.plugins[1][1].maxAttempts (plugin "./attempts.ts"): must be an integer (found "hot")
        - $.plugins[1][1].webhook (plugin "./attempts.ts"): must match pattern "^https?://" (found "ftp://hooks.example.com/in")
        - $.plugins[2][1].webhook (plugin "./attempts.ts"): holds a URL with a credential in a query parameter (such as ?api-key=…); it is refused (it would end up in version control and logs) and not shown. Remove the credential from the URL and put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option)."
    `)
  })

  it('a URL with a credential under an option that has a …Env twin: points at the twin, not at an adapter\'s apiKeyEnv', async () => {
    const message = await bad('store-url-credential')
    expect(message).not.toContain('SECRETpw123')
    expect(message).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/store-url-credential/bosun.config.yaml:
        - $.store[1].url (store "../store-url-no-options/url-store.ts"): holds a URL with a credential before the host (user:key@); it is refused (it would end up in version control and logs) and not shown. Put the whole URL in an environment variable and name that variable with "urlEnv" instead of "url": "urlEnv": "MY_URL"."
    `)
  })

  it('a key pasted where a name belongs is neither looked up nor shown', async () => {
    expect(await bad('credential-as-name')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/credential-as-name/bosun.config.yaml:
        - $.model.adapter (adapter "<credential>"): looks like a credential, not the name of an adapter, so it is neither looked up nor shown. Name the adapter here ("openai"), and put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option).
        - $.store (store "<credential>"): looks like a credential, not the name of a store, so it is neither looked up nor shown. Name the store here ("store-jsonl"), and put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option).
        - $.plugins[0] (plugin "<credential>"): looks like a credential, not the name of a plugin, so it is neither looked up nor shown. Name the plugin here ("rate-limit"), and put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option).
        - $.tools[0] (tool "<credential>"): looks like a credential, not the name of a tool, so it is neither looked up nor shown. Name the tool here ("./tools/read-file.ts"), and put the key in an environment variable and name that variable with the adapter's "apiKeyEnv" option (or a plugin's own …Env option)."
    `)
  })

  it('a module\'s error that quotes a key is quoted with the key masked, and not kept as the cause', async () => {
    expect(await bad('module-error-key')).toMatchInlineSnapshot(`
      "Invalid config <fixtures>/bad/module-error-key/bosun.config.yaml:
        - $.plugins[0] (plugin "./leaky.ts"): ./leaky.ts failed to load: the key [redacted] was refused by [redacted] (thrown at <fixtures>/bad/module-error-key/leaky.ts:3)"
    `)
    const error = await loadConfig({ cwd: fixture('bad/module-error-key') }).catch((caught: unknown) => caught)
    expect((error as BosunError).cause).toBeUndefined()
    expect(inspect(error, { depth: 10 })).not.toContain('SECRET')
  })
})

describe('config errors — the error', () => {
  it('is one CONFIG_INVALID BosunError with the problems structured in details', async () => {
    const error = await loadConfig({ cwd: fixture('bad/two-broken-plugins') }).catch((caught: unknown) => caught)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    const { file, problems } = (error as BosunError).details as { file: string; problems: unknown[] }
    expect(file).toBe(fixture('bad/two-broken-plugins/bosun.config.yaml'))
    expect(problems).toMatchObject([
      { path: '$.plugins[0]', plugin: 'nope', kind: 'plugin' },
      { path: '$.plugins[1]', plugin: './exploding.ts', kind: 'plugin', message: `./exploding.ts failed to load: TypeError: cannot read the rules file (thrown at ${fixture('bad/two-broken-plugins/exploding.ts')}:1)` },
    ])
    expect((error as BosunError).cause).toBeInstanceOf(TypeError)
  })

  it('every bad fixture is refused', async () => {
    const names = readdirSync(fixture('bad'))
    expect(names.length).toBeGreaterThanOrEqual(30)
    for (const name of names) await expect(bad(name)).resolves.toMatch(/^Invalid config <fixtures>\/bad\//)
  })
})
