import type { JsonSchema } from '../schema.js'
import { MAX_PARALLEL_TOOLS_SCHEMA } from '../create-agent.js'
import { LOG_PAGES_SCHEMA } from '../session/sealer.js'

// The root schema validates a config's shape; each plugin, adapter and store then checks its own
// options against its own schema. The same object, rendered by `renderConfigSchema`, is the
// package's `schema.json` that gives completion in JSON and YAML configs. Each `anyOf` carries an
// `x-expected` phrase that the validator uses instead of ajv's per-branch errors.

const name = (description: string, examples: string[]): JsonSchema => ({ type: 'string', minLength: 1, description, examples })
const options = (description: string): JsonSchema => ({ type: 'object', description })

const adapterName = name(
  'An adapter: "openai" → @bosun/adapter-openai (then bosun-adapter-openai), "@acme/x" → @acme/bosun-adapter-x, a package name, or a "./path" from this file\'s folder.',
  ['scripted', 'openai', 'anthropic'],
)
const storeName = name(
  '"memory", a store plugin ("store-jsonl" → @bosun/plugin-store-jsonl, then bosun-plugin-store-jsonl), a package name, or a "./path".',
  ['memory', 'store-jsonl', 'store-sqlite', 'store-postgres'],
)
const pluginName = name(
  'A plugin: "rate-limit" → @bosun/plugin-rate-limit (then bosun-plugin-rate-limit), "@acme/x" → @acme/bosun-plugin-x, a package name, or a "./path".',
  ['retry', 'rate-limit', 'step-limit', 'content-filter', 'compaction', 'subagents'],
)

/** What each alternative (`anyOf`) expects, in the words an error message uses. */
const EXPECTED = {
  adapter: 'an adapter name ("scripted", "openai"), a package name, a "./path" or an adapter object',
  store: '"memory", a store name ("store-jsonl"), [name, options] or a store object',
  plugin: 'a plugin name ("rate-limit"), [name, options] or a plugin object',
  tool: 'a "./path" or package name of a tool module, a tool object or an array of tools',
  // Not alternatives, but a `type` alone ("must be an object") does not say what to write.
  model: 'an object { "adapter": "scripted", "options"?: {…} }',
  plugins: 'an array of plugins, each a plugin name ("retry"), [name, options] or a plugin object',
  tools: 'an array of tools, each a "./path" or package name of a tool module, or a tool object',
} as const

/**
 * A model entry, `{ adapter, options? }`: the config's `model`, and any plugin (adapter, store)
 * option whose schema is marked with {@link MODEL_ENTRY_KEYWORD} — one shape, checked the same
 * way wherever it appears.
 */
export const MODEL_ENTRY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['adapter'],
  'x-expected': EXPECTED.model,
  properties: {
    adapter: { anyOf: [adapterName, { type: 'object' }], 'x-expected': EXPECTED.adapter, description: adapterName['description'] },
    options: options(
      'Options of the adapter, checked against its own schema. Never put a key here: name its environment variable ("apiKeyEnv": "OPENAI_API_KEY").',
    ),
  },
}

/**
 * Marks an option in a plugin's (adapter's, store's) options schema as a model entry:
 * `model: { 'x-bosun-model': true, type: 'object' }`. The config loader then resolves an adapter
 * name given there like the top-level `model` (see docs/plugins.md).
 */
export const MODEL_ENTRY_KEYWORD = 'x-bosun-model'

/** The JSON Schema of a Bosun config (draft-07). */
export const configSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Bosun config',
  description: 'bosun.config.{ts,js,json,yaml}, .bosunrc or package.json#bosun. See docs/config.md.',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'This schema, for editor completion: "./node_modules/@bosun/core/schema.json".' },
    model: {
      // Keys in this order so that schema.json reads as before: type, description, then the shape.
      type: 'object',
      description: 'The model adapter and its options. Default: the scripted adapter (offline; it echoes).',
      ...MODEL_ENTRY_SCHEMA,
      examples: [{ adapter: 'openai', options: { baseURL: 'https://api.deepseek.com', model: 'deepseek-chat', apiKeyEnv: 'DEEPSEEK_API_KEY' } }],
    },
    store: {
      description: 'Where sessions are kept: "memory" (default), or a store with options such as ["store-jsonl", { "dir": ".bosun/sessions" }]. Relative paths resolve from this file\'s folder.',
      anyOf: [
        storeName,
        { type: 'array', minItems: 1, maxItems: 2, items: [{ anyOf: [storeName, { type: 'object' }] }, options('Options of the store, checked against its own schema.')] },
        { type: 'object' },
      ],
      'x-expected': EXPECTED.store,
      examples: ['memory', ['store-jsonl', { dir: '.bosun/sessions' }], ['store-sqlite', { file: '.bosun/sessions.sqlite' }]],
    },
    system: { type: 'string', description: 'The system prompt. Default: empty.' },
    plugins: {
      type: 'array',
      description: 'Plugins in order, each a name or ["name", options]. The order of their taps within a hook is decided by the stages they declare.',
      items: {
        anyOf: [
          pluginName,
          { type: 'array', minItems: 1, maxItems: 2, items: [{ anyOf: [pluginName, { type: 'object' }] }, options('Options of the plugin, checked against its own schema.')] },
          { type: 'object' },
        ],
        'x-expected': EXPECTED.plugin,
      },
      'x-expected': EXPECTED.plugins,
      examples: [['retry', ['rate-limit', { turnsPerMinute: 20 }], './my-plugin.ts']],
    },
    tools: {
      type: 'array',
      description: 'Tool modules: a "./path" or package name whose default export is a tool or an array of tools.',
      items: {
        anyOf: [
          { type: 'string', minLength: 1, examples: ['./tools/read-file.ts'] },
          { type: 'object' },
          { type: 'array', items: { type: 'object' } },
        ],
        'x-expected': EXPECTED.tool,
      },
      'x-expected': EXPECTED.tools,
    },
    maxParallelTools: MAX_PARALLEL_TOOLS_SCHEMA,
    logPages: {
      description: 'Sealing of idle sessions\' logs into compressed pages (docs/architecture.md, "Sealed log pages"): false turns it off; { idleMs, pageEvents } tunes it. Default: on, 30000 ms, 256 events a page. Subagents\' children get the same.',
      ...LOG_PAGES_SCHEMA,
    },
  },
}

/** The top-level keys a config may have. */
export const CONFIG_KEYS: readonly string[] = Object.keys(configSchema['properties'] as object)

/** The text of `schema.json`, as `pnpm -C packages/core generate:schema` writes it. */
export function renderConfigSchema(): string {
  return `${JSON.stringify(configSchema, null, 2)}\n`
}
