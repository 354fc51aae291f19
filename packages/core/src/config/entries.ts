import type { AdapterDefinition } from '../adapter.js'
import type { ModelAdapter } from '../model.js'
import type { Plugin } from '../plugin.js'
import { nonJsonProblems, problemPath, type JsonSchema } from '../schema.js'
import type { StoreDefinition } from '../store/define-store.js'
import type { Store } from '../store/types.js'
import { ToolRegistry } from '../tools/registry.js'
import type { Tool } from '../tools/types.js'
import { schemaErrors } from './ajv-messages.js'
import { KEEP_CREDENTIALS_OUT, looksLikeCredential } from './credentials.js'
import { isPlainObject } from './plain-strings.js'
import { childPath, describeValue } from './problems.js'
import { importEntry, type ModuleLoader } from './resolve.js'
import { checkSecrets } from './secrets.js'
import type { ConfigProblem, EntryKind } from './types.js'

/** What resolving one entry needs. */
export interface EntryContext {
  loader: ModuleLoader
  env: Readonly<Record<string, string | undefined>>
  /**
   * Resolves the model entries an options schema marks (`model-entries.ts`). Passed in rather
   * than imported: resolving a model entry resolves an adapter entry, which comes back here.
   */
  resolveModels(context: EntryContext, schema: JsonSchema, options: unknown, path: string): Promise<ResolvedOptions>
}

/** Options whose model entries were resolved: names replaced by the adapters' definitions. */
export interface ResolvedOptions {
  options: unknown
  problems: ConfigProblem[]
  /** Paths of model entries that could not be resolved: their problems are reported already. */
  failed: string[]
}

/** Where an entry is in the config. */
export interface EntryAt {
  /** The entry (or, for `model`, its `adapter`). */
  path: string
  /** Its options; `undefined` when the entry gave none, as a bare name. */
  optionsPath: string | undefined
  /** Nested in another entry's options, whose check already reported the secrets in these. */
  nested?: boolean
}

/** An entry's module, checked for the expected kind; `problems` is empty on success. */
export interface EntryResult<T> {
  value: T | undefined
  problems: ConfigProblem[]
}

const EXPECTED: Record<EntryKind, { what: string; how: string; section: string }> = {
  plugin: {
    what: 'a plugin made by definePlugin()',
    how: 'The module should export default definePlugin({ name, schema, setup })',
    section: 'plugins',
  },
  adapter: {
    what: 'an adapter made by defineAdapter()',
    how: 'The module should export default defineAdapter({ name, schema, create })',
    section: 'model.adapter',
  },
  store: {
    what: 'a store made by defineStore()',
    how: 'The module should export default defineStore({ name, schema, create })',
    section: 'store',
  },
  tool: {
    what: 'a tool or an array of tools',
    how: 'The module should export default a tool { name, description, parameters, execute } or an array of them',
    section: 'tools',
  },
}

/**
 * Finds the module a named entry points to (or takes the object a TS config gave), checks it is
 * of the expected kind, then checks the secrets, resolves the model entries its schema marks, and
 * checks the options against the module's own schema. `options` is `undefined` when the entry
 * gave none; `optionsPath` is then where they would go. Returns the options as the module gets
 * them: with the model entries resolved.
 */
export async function resolveEntry<T>(
  context: EntryContext,
  kind: Exclude<EntryKind, 'tool'>,
  spec: unknown,
  options: unknown,
  at: EntryAt,
  accept: (value: unknown) => value is T,
): Promise<EntryResult<T> & { options: unknown }> {
  const label = typeof spec === 'string' ? spec : nameOf(spec)
  const problem = (path: string, message: string, cause?: unknown): ConfigProblem => ({
    path,
    ...(label === undefined ? {} : { plugin: label, kind }),
    message,
    ...(cause === undefined ? {} : { cause }),
  })
  const problems: ConfigProblem[] = []
  // The secrets are checked against the module's schema once it is known (it marks the user's
  // data, which is not walked); a module that cannot be had gets the whole options checked.
  const checkedSecrets = (schema?: JsonSchema) => {
    const found = at.optionsPath === undefined ? [] : checkSecrets(options, at.optionsPath, context.env, schema)
    if (!at.nested) for (const finding of found) problems.push(problem(finding.path, finding.message))
    return found
  }
  const failed = (first: ConfigProblem) => {
    checkedSecrets()
    return { value: undefined, options, problems: [first, ...problems] }
  }

  let value: unknown = spec
  let source = 'it'
  if (typeof spec === 'string' && looksLikeCredential(spec)) return failed(problem(at.path, credentialAsName(kind)))
  if (typeof spec === 'string') {
    const imported = await importEntry(context.loader, spec, kind)
    if (!imported.ok) return failed(problem(at.path, imported.message, imported.cause))
    value = imported.value
    source = `the default export of ${imported.specifier}`
    if (imported.namedExports) {
      const names = imported.namedExports.length > 0 ? ` (it exports ${imported.namedExports.join(', ')})` : ''
      return failed(problem(at.path, `${imported.specifier} has no default export${names}. ${EXPECTED[kind].how}.`))
    }
  }
  if (!accept(value)) return failed(problem(at.path, wrongKind(kind, source, value)))
  const schema = (value as { schema?: JsonSchema }).schema
  const secrets = checkedSecrets(schema)
  // A value JSON cannot hold (a YAML .nan or .inf, a bigint from a TS config) where the schema
  // names no type, or the module has none: refused here, at its path in the config, as the
  // module's options check would refuse it from code — not later by createAgent, without the
  // file. An entry nested in another's options was walked with them.
  const nonJson = at.nested === true ? [] : nonJsonProblems(options).map(({ keys, message }) => problem(problemPath(at.optionsPath ?? '$', keys), message))
  if (schema === undefined) return { value: value as T, options, problems: [...problems, ...nonJson] }

  const models = at.optionsPath === undefined ? undefined : await context.resolveModels(context, schema, options, at.optionsPath)
  problems.push(...(models?.problems ?? []))
  // A schema error under a literal secret could show the value: the secret finding says enough.
  // One under a model entry that failed would repeat what its own problems say.
  const hidden = [...secrets.filter((finding) => finding.literal).map((finding) => finding.path), ...(models?.failed ?? [])]
  const under = (path: string) => hidden.some((top) => path === top || path.startsWith(`${top}.`) || path.startsWith(`${top}[`))
  const refused = new Set<string>()
  for (const error of schemaErrors(schema, models?.options ?? options ?? {}, at.optionsPath ?? '$')) {
    if (under(error.path)) continue
    refused.add(error.path)
    problems.push(
      at.optionsPath === undefined
        ? problem(at.path, unsetOptions(error.path, error.message, label))
        : problem(error.path, error.message),
    )
  }
  // Once per path: where the schema names a type, its line says it (`must be an integer (found NaN)`).
  problems.push(...nonJson.filter(({ path }) => !refused.has(path) && !under(path)))
  return { value: value as T, options: models?.options ?? options, problems }
}

/**
 * A schema error of an entry named without options (a bare string): about one option, or — at the
 * options' root — the options as a whole, which were not given (checked as `{}`, so "found an
 * object" would name what the user did not write).
 */
function unsetOptions(path: string, message: string, label: string | undefined): string {
  const key = path.replace(/^\$\.?/, '')
  const how = `give options as [${JSON.stringify(label)}, { … }]`
  if (key !== '') return `option "${key}" ${message} — ${how}`
  return `takes options and none were given: they ${message.replace(/ \(found an object\)$/, '')} — ${how}`
}

/** A tools entry: a module whose default export is a tool or tools, or the tools themselves. */
export async function resolveTools(context: EntryContext, spec: unknown, path: string): Promise<EntryResult<Tool[]>> {
  let value = spec
  let source = 'it'
  const label = typeof spec === 'string' ? spec : nameOf(spec)
  const problem = (message: string, cause?: unknown): ConfigProblem => ({
    path,
    ...(label === undefined ? {} : { plugin: label, kind: 'tool' as const }),
    message,
    ...(cause === undefined ? {} : { cause }),
  })
  if (typeof spec === 'string' && looksLikeCredential(spec)) return { value: undefined, problems: [problem(credentialAsName('tool'))] }
  if (typeof spec === 'string') {
    const imported = await importEntry(context.loader, spec, 'tool')
    if (!imported.ok) return { value: undefined, problems: [problem(imported.message, imported.cause)] }
    if (imported.namedExports) {
      return { value: undefined, problems: [problem(`${imported.specifier} has no default export. ${EXPECTED.tool.how}.`)] }
    }
    value = imported.value
    source = `the default export of ${imported.specifier}`
  }
  const tools = Array.isArray(value) ? (value as unknown[]) : [value]
  if (tools.length === 0 || !tools.every(isToolLike)) return { value: undefined, problems: [problem(wrongKind('tool', source, value))] }
  const problems: ConfigProblem[] = []
  for (const tool of tools) {
    try {
      new ToolRegistry([tool])
    } catch (error) {
      const detail = (error as Error).message.replace(/^tools\[0\](?: \("[^"]*"\))?:? ?/, '')
      problems.push(problem(`${source} is not a valid tool: ${detail}`))
    }
  }
  return { value: tools, problems }
}

// Kind checks are structural (the `kind` brand), so modules built against another copy of
// @bosun/core are recognised too.
export const isPlugin = (value: unknown): value is Plugin => kindOf(value) === 'bosun-plugin'
export const isAdapterDefinition = (value: unknown): value is AdapterDefinition<any> => kindOf(value) === 'bosun-adapter'
export const isStoreDefinition = (value: unknown): value is StoreDefinition<any> => kindOf(value) === 'bosun-store'

/** A ready adapter (in code or a TS config): a name and a `stream` method. */
export function isModelAdapter(value: unknown): value is ModelAdapter {
  const adapter = value as ModelAdapter | null
  return typeof adapter === 'object' && adapter !== null && typeof adapter.stream === 'function' && typeof adapter.name === 'string'
}

/** A ready store (in code or a TS config). */
export function isStore(value: unknown): value is Store {
  const store = value as Store | null
  return typeof store === 'object' && store !== null && typeof store.open === 'function' && typeof store.create === 'function'
}

function isToolLike(value: unknown): value is Tool {
  return typeof value === 'object' && value !== null && !('kind' in value) && typeof (value as Tool).execute === 'function'
}

function kindOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined
}

function nameOf(value: unknown): string | undefined {
  const name = typeof value === 'object' && value !== null ? (value as { name?: unknown }).name : undefined
  return typeof name === 'string' ? name : undefined
}

/** What a module that is a Bosun module of another kind is: a plugin named under "store"… */
const KIND_FOUND: Record<string, EntryKind> = {
  'a plugin': 'plugin',
  'an adapter definition': 'adapter',
  'a store definition': 'store',
  'a tool': 'tool',
}

/** For a name that looks like a credential: it is neither tried nor shown. */
function credentialAsName(kind: EntryKind): string {
  const example = { plugin: '"rate-limit"', adapter: '"openai"', store: '"store-jsonl"', tool: '"./tools/read-file.ts"' }[kind]
  return `looks like a credential, not the name of ${kind === 'adapter' ? 'an' : 'a'} ${kind}, so it is neither looked up nor shown. Name the ${kind} here (${example}), and ${KEEP_CREDENTIALS_OUT}.`
}

function wrongKind(kind: EntryKind, source: string, value: unknown): string {
  const found = describeExport(value)
  const other = KIND_FOUND[found]
  const hint = other !== undefined && other !== kind ? `; name it under "${EXPECTED[other].section}" instead` : `. ${(source === 'it' && writtenAsMap(kind, value)) || EXPECTED[kind].how}`
  return `${source} is not ${EXPECTED[kind].what} (found ${found})${hint}.`
}

/**
 * An entry the config spells out as a map — YAML's `- retry: { maxAttempts: 3 }`, JSON's
 * `{ "retry": {…} }` — where a name or `[name, options]` belongs: the form it meant, not advice
 * about a module's default export (there is no module).
 */
function writtenAsMap(kind: EntryKind, value: unknown): string | undefined {
  if (kind === 'adapter' || typeof value !== 'object' || value === null || Array.isArray(value) || !isPlainObject(value)) return undefined
  // One key, no function: not a plugin or tool object a TS config wrote without its define…().
  const keys = Object.keys(value)
  if (keys.length !== 1 || typeof (value as Record<string, unknown>)[keys[0]!] === 'function') return undefined
  const name = looksLikeCredential(keys[0]!) ? '"<name>"' : JSON.stringify(keys[0])
  if (kind === 'tool') return `In a config file a tool is named by its path or package, without options: ${name}`
  return `In a config file a ${kind} is its name, or [name, options]: [${name}, { … }], not { ${name}: { … } }`
}

function describeExport(value: unknown): string {
  switch (kindOf(value)) {
    case 'bosun-plugin':
      return 'a plugin'
    case 'bosun-adapter':
      return 'an adapter definition'
    case 'bosun-store':
      return 'a store definition'
  }
  if (isToolLike(value)) return 'a tool'
  if (isModelAdapter(value)) return 'a model adapter'
  if (value === undefined) return 'undefined'
  return describeValue(value)
}
