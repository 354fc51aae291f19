/**
 * The configs `bosun init` writes, one per format: the offline default (the scripted model, which
 * echoes, and JSONL sessions under `.bosun/sessions`) with comments on where a real provider and
 * plugins go. They name only environment variables, never a key. The store is named although the
 * CLI would default to the same one: `loadConfig()` in code defaults to memory, and the file should
 * mean the same there.
 */

/** A format `bosun init --format` writes. */
export type InitFormat = 'ts' | 'json' | 'yaml'

export const INIT_FORMATS: readonly InitFormat[] = ['ts', 'json', 'yaml']

/** The file each format is written to: one of the loader's search places (CONFIG_SEARCH_PLACES). */
export const INIT_FILE_NAMES: Readonly<Record<InitFormat, string>> = {
  ts: 'bosun.config.ts',
  json: 'bosun.config.json',
  yaml: 'bosun.config.yaml',
}

/** The config every format writes, as data. */
export const INIT_CONFIG = {
  model: { adapter: 'scripted' },
  store: ['store-jsonl', { dir: '.bosun/sessions' }],
  system: 'You are a helpful assistant.',
  plugins: [],
} as const

/**
 * What a JSON file cannot say in comments, printed after it is written: where a real provider and
 * plugins go, the same hints the TS and YAML files carry.
 */
export const JSON_HINTS: readonly string[] = [
  'For a real model, set "model" to one of (the key is read from the environment variable, never written in the file):',
  '  { "adapter": "openai", "options": { "model": "gpt-4.1" } }                  reads OPENAI_API_KEY',
  '  { "adapter": "anthropic", "options": { "model": "claude-sonnet-4-5" } }     reads ANTHROPIC_API_KEY',
  '  { "adapter": "openai", "options": { "baseURL": "https://api.deepseek.com", "model": "deepseek-chat", "apiKeyEnv": "DEEPSEEK_API_KEY" } }',
  'Plugins go in "plugins", in the order they run: "retry", ["step-limit", { "maxSteps": 20 }]; bosun plugins add <name> installs one from npm and adds it.',
]

/** The text of the config file in `format`. */
export function initConfigText(format: InitFormat): string {
  if (format === 'json') return `${JSON.stringify(INIT_CONFIG, null, 2)}\n`
  return format === 'ts' ? TS : YAML
}

// `import type` only: it is erased when the file loads, so the config runs where only the CLI is
// installed; with @bosun/core in the project, the editor checks the object against the type.
const TS = `// Written by \`bosun init\`. Every key: docs/config.md of Bosun (https://github.com/bosun-dev/bosun).
import type { BosunConfig } from '@bosun/core/config'

export default {
  // The scripted model works offline with no key: it echoes each message. For a real provider,
  // put one of these instead (the key is read from the environment variable, never written here):
  //   model: { adapter: 'openai', options: { model: 'gpt-4.1' } },                  // reads OPENAI_API_KEY
  //   model: { adapter: 'anthropic', options: { model: 'claude-sonnet-4-5' } },     // reads ANTHROPIC_API_KEY
  //   model: { adapter: 'openai', options: { baseURL: 'https://api.deepseek.com', model: 'deepseek-chat', apiKeyEnv: 'DEEPSEEK_API_KEY' } },
  // Any Vercel AI SDK model: install @bosun/adapter-ai-sdk and a provider (docs/providers.md).
  model: { adapter: 'scripted' },
  // Sessions are JSONL files in .bosun/sessions, next to this file.
  store: ['store-jsonl', { dir: '.bosun/sessions' }],
  system: 'You are a helpful assistant.',
  // Plugins, in the order they run: e.g. ['retry', ['step-limit', { maxSteps: 20 }]].
  // \`bosun plugins add <name>\` installs one from npm and adds it here.
  plugins: [],
} satisfies BosunConfig
`

const YAML = `# Written by \`bosun init\`. Every key: docs/config.md of Bosun (https://github.com/bosun-dev/bosun).

# The scripted model works offline with no key: it echoes each message. For a real provider,
# put one of these instead (the key is read from the environment variable, never written here):
#   model: { adapter: openai, options: { model: gpt-4.1 } }                # reads OPENAI_API_KEY
#   model: { adapter: anthropic, options: { model: claude-sonnet-4-5 } }   # reads ANTHROPIC_API_KEY
#   model: { adapter: openai, options: { baseURL: https://api.deepseek.com, model: deepseek-chat, apiKeyEnv: DEEPSEEK_API_KEY } }
model:
  adapter: scripted

# Sessions are JSONL files in .bosun/sessions, next to this file.
store: [store-jsonl, { dir: .bosun/sessions }]

system: You are a helpful assistant.

# Plugins, in the order they run: e.g. [retry, [step-limit, { maxSteps: 20 }]].
# \`bosun plugins add <name>\` installs one from npm and adds it here.
plugins: []
`
