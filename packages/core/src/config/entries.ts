import type { AdapterDefinition } from '../adapter.js'
import type { ModelAdapter } from '../model.js'
import type { Plugin } from '../plugin.js'
import type { StoreDefinition } from '../store/define-store.js'
import type { Store } from '../store/types.js'
import { ToolRegistry } from '../tools/registry.js'
import type { Tool } from '../tools/types.js'
import { schemaErrors } from './ajv-messages.js'
import { KEEP_CREDENTIALS_OUT, looksLikeCredential } from './credentials.js'
import { childPath, describeValue } from './problems.js'
import { importEntry, type ModuleLoader } from './resolve.js'
import { checkSecrets } from './secrets.js'
import type { ConfigProblem, EntryKind } from './types.js'

/** What resolving one entry needs. */
export interface EntryContext {
  loader: ModuleLoader
  env: Readonly<Record<string, string | undefined>>
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
 * of the expected kind, then checks the secrets and the options against the module's own schema.
 * `options` is `undefined` when the entry gave none; `optionsPath` is then where they would go.
 */
export async function resolveEntry<T>(
  context: EntryContext,
  kind: Exclude<EntryKind, 'tool'>,
  spec: unknown,
  options: unknown,
  at: { path: string; optionsPath: string | undefined },
  accept: (value: unknown) => value is T,
): Promise<EntryResult<T>> {
  const label = typeof spec === 'string' ? spec : nameOf(spec)
  const problem = (path: string, message: string, cause?: unknown): ConfigProblem => ({
    path,
    ...(label === undefined ? {} : { plugin: label, kind }),
    message,
    ...(cause === undefined ? {} : { cause }),
  })
  const problems: ConfigProblem[] = []
  const secrets = at.optionsPath === undefined ? [] : checkSecrets(options, at.optionsPath, context.env)
  for (const finding of secrets) problems.push(problem(finding.path, finding.message))

  let value: unknown = spec
  let source = 'it'
  if (typeof spec === 'string' && looksLikeCredential(spec)) return { value: undefined, problems: [problem(at.path, credentialAsName(kind)), ...problems] }
  if (typeof spec === 'string') {
    const imported = await importEntry(context.loader, spec, kind)
    if (!imported.ok) return { value: undefined, problems: [problem(at.path, imported.message, imported.cause), ...problems] }
    value = imported.value
    source = `the default export of ${imported.specifier}`
    if (imported.namedExports) {
      const names = imported.namedExports.length > 0 ? ` (it exports ${imported.namedExports.join(', ')})` : ''
      const message = `${imported.specifier} has no default export${names}. ${EXPECTED[kind].how}.`
      return { value: undefined, problems: [problem(at.path, message), ...problems] }
    }
  }
  if (!accept(value)) {
    return { value: undefined, problems: [problem(at.path, wrongKind(kind, source, value)), ...problems] }
  }
  const schema = (value as { schema?: Record<string, unknown> }).schema
  if (schema !== undefined) {
    // A schema error under a literal secret could show the value: the secret finding says enough.
    const hidden = secrets.filter((finding) => finding.literal).map((finding) => finding.path)
    const under = (path: string) =>
      hidden.some((secret) => path === secret || path.startsWith(`${secret}.`) || path.startsWith(`${secret}[`))
    for (const error of schemaErrors(schema, options ?? {}, at.optionsPath ?? '$')) {
      if (under(error.path)) continue
      problems.push(
        at.optionsPath === undefined
          ? problem(at.path, `option "${error.path.slice(2)}" ${error.message} — give options as [${JSON.stringify(label)}, { … }]`)
          : problem(error.path, error.message),
      )
    }
  }
  return { value: value as T, problems }
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
  const hint = other !== undefined && other !== kind ? `; name it under "${EXPECTED[other].section}" instead` : `. ${EXPECTED[kind].how}`
  return `${source} is not ${EXPECTED[kind].what} (found ${found})${hint}.`
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
